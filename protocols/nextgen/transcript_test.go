package nextgen

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/sim"
)

// Transcript tests, in the style of raft's interaction tests: each file of
// testdata/ is a sequence of blocks
//
//	command arg key=value ...
//	----
//	expected output, one line per effect
//
// separated by blank lines; lines starting with # are comments. A block's
// output is what the command produced. `go test -rewrite` regenerates the
// expectations; review the diff like code.

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of transcript tests")

type block struct {
	comments []string
	command  string
	want     []string
	line     int
}

func parseTranscript(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []block
	var cur *block
	inWant := false
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case inWant && line == "":
			inWant, cur = false, nil
		case inWant:
			cur.want = append(cur.want, line)
		case line == "----":
			if cur == nil {
				t.Fatalf("%s:%d: ---- without a command", path, n)
			}
			inWant = true
		case line == "":
			if cur != nil && cur.command != "" {
				cur = nil
			}
		case strings.HasPrefix(line, "#"):
			if cur == nil || cur.command != "" {
				blocks = append(blocks, block{line: n})
				cur = &blocks[len(blocks)-1]
			}
			cur.comments = append(cur.comments, line)
		default:
			if cur == nil || cur.command != "" {
				blocks = append(blocks, block{line: n})
				cur = &blocks[len(blocks)-1]
			}
			cur.command = line
		}
	}
	return blocks
}

// runTranscript runs every block of path through do and compares (or, with
// -rewrite, rewrites) the output.
func runTranscript(t *testing.T, path string, do func(t *testing.T, cmd string, args []string) []string) {
	blocks := parseTranscript(t, path)
	var b strings.Builder
	for i, bl := range blocks {
		if i > 0 {
			b.WriteString("\n")
		}
		for _, c := range bl.comments {
			b.WriteString(c + "\n")
		}
		if bl.command == "" {
			continue
		}
		fields := strings.Fields(bl.command)
		got := do(t, fields[0], fields[1:])
		b.WriteString(bl.command + "\n----\n")
		for _, g := range got {
			b.WriteString(g + "\n")
		}
		if !*rewrite && !slices.Equal(got, bl.want) {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", path, bl.line, bl.command, strings.Join(got, "\n"), strings.Join(bl.want, "\n"))
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func transcriptFiles(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in testdata/%s: %v", dir, err)
	}
	return files
}

// --- argument parsing ---

type args map[string]string

func parseArgs(t *testing.T, fields []string) (positional []string, kv args) {
	kv = args{}
	for _, f := range fields {
		if k, v, ok := strings.Cut(f, "="); ok {
			kv[k] = v
		} else {
			positional = append(positional, f)
		}
	}
	return positional, kv
}

func (a args) str(k, def string) string {
	if v, ok := a[k]; ok {
		return v
	}
	return def
}

func (a args) int32(t *testing.T, k string, def int32) int32 {
	v, ok := a[k]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%s: %v", k, v, err)
	}
	return int32(n)
}

func (a args) dur(t *testing.T, k string, def time.Duration) time.Duration {
	v, ok := a[k]
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s=%s: %v", k, v, err)
	}
	return d
}

// assignment parses "orders:0,1,2;payments:3" ("-" is empty, absent is nil).
func (a args) assignment(t *testing.T, k string) kafka.Assignment {
	v, ok := a[k]
	if !ok {
		return nil
	}
	return parseAssignment(t, v)
}

func parseAssignment(t *testing.T, v string) kafka.Assignment {
	out := kafka.Assignment{}
	if v == "-" {
		return out
	}
	for _, part := range strings.Split(v, ";") {
		topic, ps, ok := strings.Cut(part, ":")
		if !ok {
			t.Fatalf("bad assignment %q", v)
		}
		for _, p := range strings.Split(ps, ",") {
			if lo, hi, ok := strings.Cut(p, "-"); ok {
				l, _ := strconv.Atoi(lo)
				h, _ := strconv.Atoi(hi)
				for i := l; i <= h; i++ {
					out[topic] = append(out[topic], int32(i))
				}
				continue
			}
			n, err := strconv.Atoi(p)
			if err != nil {
				t.Fatalf("bad assignment %q: %v", v, err)
			}
			out[topic] = append(out[topic], int32(n))
		}
	}
	return out.Normalize()
}

func (a args) list(k string) []string {
	v, ok := a[k]
	if !ok {
		return nil
	}
	if v == "" {
		return []string{}
	}
	return strings.Split(v, ",")
}

// --- rendering ---

func fmtAssignment(a kafka.Assignment) string {
	if a == nil {
		return "null"
	}
	if a.Size() == 0 {
		return "-"
	}
	var parts []string
	for _, t := range a.Topics() {
		var ps []string
		for _, p := range a[t] {
			ps = append(ps, strconv.Itoa(int(p)))
		}
		parts = append(parts, t+":"+strings.Join(ps, ","))
	}
	return strings.Join(parts, ";")
}

func fmtDur(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

func fmtMessage(m sim.Message) string {
	switch r := m.(type) {
	case ConsumerGroupHeartbeatRequest:
		s := fmt.Sprintf("ConsumerGroupHeartbeat member=%s epoch=%d", orDash(r.MemberID), r.MemberEpoch)
		if r.InstanceID != "" {
			s += " instance=" + r.InstanceID
		}
		if r.RebalanceTimeoutMs != -1 {
			s += fmt.Sprintf(" rt=%d", r.RebalanceTimeoutMs)
		}
		if r.SubscribedTopicNames != nil {
			s += " topics=" + strings.Join(r.SubscribedTopicNames, ",")
		}
		if r.ServerAssignor != "" {
			s += " assignor=" + r.ServerAssignor
		}
		if r.TopicPartitions != nil {
			s += " owned=" + fmtAssignment(r.TopicPartitions)
		}
		return s
	case ConsumerGroupHeartbeatResponse:
		s := fmt.Sprintf("ConsumerGroupHeartbeatResponse %s member=%s epoch=%d", r.ErrorCode, orDash(r.MemberID), r.MemberEpoch)
		if r.ErrorCode == None {
			s += fmt.Sprintf(" interval=%d assignment=%s", r.HeartbeatIntervalMs, fmtAssignment(r.Assignment))
		}
		return s
	case classic.JoinGroupResponse:
		s := fmt.Sprintf("JoinGroupResponse %s member=%s gen=%d", r.Error, orDash(r.MemberID), r.Generation)
		if r.ProtocolName != "" {
			s += " protocol=" + r.ProtocolName
		}
		if r.Leader != "" {
			s += " leader=" + r.Leader
		}
		if r.SkipAssignment {
			s += " skip-assignment"
		}
		if len(r.Members) > 0 {
			var ids []string
			for _, m := range r.Members {
				ids = append(ids, m.MemberID)
			}
			s += " members=" + strings.Join(ids, ",")
		}
		return s
	case classic.SyncGroupResponse:
		return fmt.Sprintf("SyncGroupResponse %s assignment=%s", r.Error, fmtAssignment(r.Assignment))
	case classic.HeartbeatResponse:
		return fmt.Sprintf("HeartbeatResponse %s", r.Error)
	case classic.LeaveGroupResponse:
		return fmt.Sprintf("LeaveGroupResponse %s", r.Error)
	}
	return fmt.Sprintf("%s %+v", m.Kind(), m)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fmtNote(n sim.Note) string {
	s := "note " + string(n.Kind)
	switch n.Kind {
	case sim.NoteMemberAdded, sim.NoteMemberRemoved:
		s += " " + n.MemberID + " (" + n.Process + ")"
		if n.Detail != "" {
			s += ": " + n.Detail
		}
	case sim.NoteRebalance:
		s += fmt.Sprintf(" epoch=%d", n.Value)
	case sim.NoteGroupState, sim.NoteGroupType, sim.NoteClientState:
		s += " " + n.Detail
	case sim.NoteRebalanceEnd:
		if n.Failed {
			s += " failed: " + n.Detail
		}
	default:
		if n.Detail != "" {
			s += " " + n.Detail
		}
	}
	return s
}

// --- the coordinator transcript ---

// coordHarness drives a Coordinator with a fake clock, keeping its timers.
type coordHarness struct {
	t        *testing.T
	c        *Coordinator
	now      time.Duration
	metadata []kafka.Topic
	timers   map[sim.TimerID]time.Duration
}

func newCoordHarness(t *testing.T, cfg sim.GroupConfig) *coordHarness {
	return &coordHarness{t: t, c: NewCoordinator(cfg), timers: map[sim.TimerID]time.Duration{},
		metadata: []kafka.Topic{{Name: "orders", Partitions: 6}}}
}

func (h *coordHarness) env() sim.CoordinatorEnv {
	return sim.CoordinatorEnv{Now: h.now, Metadata: h.metadata}
}

// apply renders the effects and keeps the timers.
func (h *coordHarness) apply(out *sim.Effects) []string {
	var lines []string
	for _, n := range out.Notes {
		lines = append(lines, fmtNote(n))
	}
	for _, s := range out.Sends {
		lines = append(lines, s.To.Process+" <- "+fmtMessage(s.Msg))
	}
	for _, tr := range out.Timers {
		if tr.Cancel {
			delete(h.timers, tr.ID)
		} else {
			h.timers[tr.ID] = tr.At
		}
	}
	return lines
}

func (h *coordHarness) receive(from string, msg sim.Message) []string {
	out := &sim.Effects{}
	h.c.Receive(h.env(), sim.Endpoint{Process: from, Incarnation: 1}, msg, out)
	return h.apply(out)
}

// advance moves the clock, firing due timers in time order (ties by name).
func (h *coordHarness) advance(d time.Duration) []string {
	until := h.now + d
	var lines []string
	for {
		name, at := sim.TimerID{}, time.Duration(-1)
		for _, n := range sortedTimerNames(h.timers) {
			if tat := h.timers[n]; tat <= until && (at < 0 || tat < at) {
				name, at = n, tat
			}
		}
		if at < 0 {
			break
		}
		delete(h.timers, name)
		h.now = at
		lines = append(lines, "timer "+name.String()+" @"+fmtDur(at))
		out := &sim.Effects{}
		h.c.Timer(h.env(), name, out)
		lines = append(lines, h.apply(out)...)
	}
	h.now = until
	return lines
}

func sortedTimerNames(m map[sim.TimerID]time.Duration) []sim.TimerID {
	names := make([]sim.TimerID, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i].String() < names[j].String() })
	return names
}

// dump describes the group.
func (h *coordHarness) dump() []string {
	c := h.c
	if c.consumer == nil {
		g := c.classic
		lines := []string{fmt.Sprintf("classic %s generation=%d protocol=%s", g.State(), g.Generation(), orDash(g.ProtocolName()))}
		for _, m := range g.Members() {
			lines = append(lines, fmt.Sprintf("  %s assignment=%s", m.ID, fmtAssignment(m.Assignment)))
		}
		return lines
	}
	g := c.consumer
	lines := []string{fmt.Sprintf("consumer %s epoch=%d target-epoch=%d", g.state(), g.groupEpoch, g.targetEpoch)}
	for _, m := range g.members {
		proto := "consumer"
		if m.useClassicProtocol() {
			proto = "classic"
		}
		s := fmt.Sprintf("  %s %s %s epoch=%d prev=%d assigned=%s", m.id, proto, m.State, m.Epoch, m.PreviousEpoch, fmtAssignment(m.Assigned))
		if m.PendingRevocation.Size() > 0 {
			s += " revoking=" + fmtAssignment(m.PendingRevocation)
		}
		s += " target=" + fmtAssignment(g.targetOf(m))
		lines = append(lines, s)
	}
	held := g.partitionEpochs.held()
	var tps []kafka.TopicPartition
	for tp := range held {
		tps = append(tps, tp)
	}
	kafka.SortPartitions(tps)
	var eps []string
	for _, tp := range tps {
		eps = append(eps, fmt.Sprintf("%s=%d", tp, held[tp]))
	}
	lines = append(lines, "  partition epochs: "+strings.Join(eps, " "))
	return lines
}

// The coordinator commands:
//
//	hb <process> member=<id> epoch=<n> [instance=<id>] [rt=<ms>] [topics=a,b] [owned=t:0,1|-] [assignor=<name>]
//	  Example: hb c1 member=- epoch=0 topics=orders owned=-
//	  A ConsumerGroupHeartbeat; epoch 0 defaults to a full join (rt=300000, topics=orders, owned=-).
//	join <process> member=<id> [instance=<id>] [owned=t:0,1] [gen=<n>] [protocols=a,b] [session=45s]
//	  Example: join c1 member=- protocols=cooperative-sticky
//	sync <process> member=<id> gen=<n> [instance=<id>] [assign=<member>/t:0,1/...]
//	classic-hb <process> member=<id> gen=<n> [instance=<id>]
//	leave <process> member=<id> [instance=<id>]
//	tick <duration>      advance the clock, firing due timers
//	metadata t=<n> ...   change partition counts and tell the coordinator
//	dump                 the group's state
func (h *coordHarness) do(t *testing.T, cmd string, fields []string) []string {
	pos, a := parseArgs(t, fields)
	switch cmd {
	case "hb":
		epoch := a.int32(t, "epoch", 0)
		req := ConsumerGroupHeartbeatRequest{MemberID: strings.TrimPrefix(a.str("member", ""), "-"), MemberEpoch: epoch,
			InstanceID: a.str("instance", ""), RebalanceTimeoutMs: a.int32(t, "rt", -1), SubscribedTopicNames: a.list("topics"),
			ServerAssignor: a.str("assignor", ""), TopicPartitions: a.assignment(t, "owned")}
		if epoch == 0 {
			if req.RebalanceTimeoutMs == -1 {
				req.RebalanceTimeoutMs = 300000
			}
			if req.SubscribedTopicNames == nil {
				req.SubscribedTopicNames = []string{"orders"}
			}
			if req.TopicPartitions == nil {
				req.TopicPartitions = kafka.Assignment{}
			}
		}
		return h.receive(pos[0], req)
	case "join":
		owned := a.assignment(t, "owned")
		protocols := a.list("protocols")
		if protocols == nil {
			protocols = []string{"cooperative-sticky"}
		}
		sub := classic.Subscription{Topics: []string{"orders"}, Owned: owned, Generation: a.int32(t, "gen", -1)}
		req := classic.JoinGroupRequest{ClientID: pos[0], MemberID: strings.TrimPrefix(a.str("member", ""), "-"), GroupInstanceID: a.str("instance", ""),
			SessionTimeout: a.dur(t, "session", 45*time.Second), RebalanceTimeout: a.dur(t, "rebalance", 5*time.Minute)}
		for _, p := range protocols {
			req.Protocols = append(req.Protocols, classic.ProtocolMetadata{Name: p, Metadata: sub})
		}
		return h.receive(pos[0], req)
	case "sync":
		req := classic.SyncGroupRequest{MemberID: a.str("member", ""), GroupInstanceID: a.str("instance", ""), Generation: a.int32(t, "gen", -1)}
		if v, ok := a["assign"]; ok {
			req.Assignments = map[string]kafka.Assignment{}
			for _, part := range strings.Split(v, "/") {
				id, as, _ := strings.Cut(part, "=")
				req.Assignments[id] = parseAssignment(t, as)
			}
		}
		return h.receive(pos[0], req)
	case "classic-hb":
		return h.receive(pos[0], classic.HeartbeatRequest{MemberID: a.str("member", ""), GroupInstanceID: a.str("instance", ""), Generation: a.int32(t, "gen", -1)})
	case "leave":
		return h.receive(pos[0], classic.LeaveGroupRequest{MemberID: a.str("member", ""), GroupInstanceID: a.str("instance", "")})
	case "tick":
		d, err := time.ParseDuration(pos[0])
		if err != nil {
			t.Fatal(err)
		}
		return h.advance(d)
	case "metadata":
		md := slices.Clone(h.metadata)
		for k := range a {
			n := a.int32(t, k, 0)
			found := false
			for i := range md {
				if md[i].Name == k {
					md[i].Partitions, found = n, true
				}
			}
			if !found {
				md = append(md, kafka.Topic{Name: k, Partitions: n})
			}
		}
		h.metadata = md
		out := &sim.Effects{}
		h.c.MetadataChanged(h.env(), out)
		return h.apply(out)
	case "dump":
		return h.dump()
	}
	t.Fatalf("unknown command %q", cmd)
	return nil
}

func TestCoordinatorTranscripts(t *testing.T) {
	for _, path := range transcriptFiles(t, "coordinator") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cfg := sim.ResolveGroupConfig(sim.GroupConfig{InitialRebalanceDelay: 3 * time.Second})
			if strings.Contains(path, "policy-disabled") {
				cfg.MigrationPolicy = "disabled"
			}
			if strings.Contains(path, "interval") {
				cfg.AssignmentInterval = time.Second
			}
			h := newCoordHarness(t, cfg)
			runTranscript(t, path, h.do)
		})
	}
}
