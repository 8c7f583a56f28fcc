// Package transcript is what the protocol models' transcript tests share.
//
// A transcript test (github.com/cockroachdb/datadriven, as etcd's raft
// uses it) drives one model, or a few, with commands read from
// testdata/*.txt and prints every effect each command produced: notes,
// messages, callbacks, and timers set and cancelled. `go test -rewrite`
// regenerates the expected output; a reviewer reads the diff like code.
//
// The package holds the pieces every such harness needs, so that each
// harness only says what its commands mean:
//
//  1. Args reads a command's arguments (positional names, key=value).
//  2. Timers keeps the timers the models armed and fires them in time
//     order as a `tick` advances the clock.
//  3. Assignment, Note, Message and Duration print effects the same way
//     in every transcript.
package transcript

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/sim"
)

// Args are one command's arguments: positional words (`c1`, `static`) and
// key=value pairs (`epoch=1`, `topics=(orders, payments)`). A malformed
// value fails the test at the command's file and line.
type Args struct {
	t testing.TB
	d *datadriven.TestData
}

// NewArgs reads the arguments of d.
func NewArgs(t testing.TB, d *datadriven.TestData) Args { return Args{t: t, d: d} }

// Pos returns the i-th positional argument, failing if there is none.
func (a Args) Pos(i int) string {
	n := 0
	for _, arg := range a.d.CmdArgs {
		if len(arg.Vals) > 0 {
			continue
		}
		if n == i {
			return arg.Key
		}
		n++
	}
	a.d.Fatalf(a.t, "%s: want at least %d positional arguments", a.d.Cmd, i+1)
	return ""
}

// PosDur returns the i-th positional argument as a Go duration.
func (a Args) PosDur(i int) time.Duration {
	v := a.Pos(i)
	d, err := time.ParseDuration(v)
	if err != nil {
		a.d.Fatalf(a.t, "%s %s: want a duration such as 3s", a.d.Cmd, v)
	}
	return d
}

// ConsumerConfig reads the settings `new <name>` takes in every client
// transcript, over Kafka's defaults for a client of groupProtocol
// subscribed to orders:
//
//	[static | instance=<id>] [session=<dur>] [maxpoll=<dur>]
//
// static makes <name> the group.instance.id; instance=<id> gives another,
// so that a second client can be the next incarnation of a static member.
func (a Args) ConsumerConfig(groupProtocol string) sim.ConsumerConfig {
	name := a.Pos(0)
	cfg := sim.DefaultConsumerConfig(name)
	cfg.GroupProtocol, cfg.Subscription = groupProtocol, []string{"orders"}
	cfg.SessionTimeout = a.Dur("session", cfg.SessionTimeout)
	cfg.MaxPollInterval = a.Dur("maxpoll", cfg.MaxPollInterval)
	if a.Has("static") {
		cfg.GroupInstanceID = name
	}
	cfg.GroupInstanceID = a.Str("instance", cfg.GroupInstanceID)
	return cfg
}

// Has reports whether the positional argument word is present.
func (a Args) Has(word string) bool {
	for _, arg := range a.d.CmdArgs {
		if arg.Key == word && len(arg.Vals) == 0 {
			return true
		}
	}
	return false
}

// value returns the value of key, joined back with commas if it was given
// as a list.
func (a Args) value(key string) (string, bool) {
	for _, arg := range a.d.CmdArgs {
		if arg.Key == key && len(arg.Vals) > 0 {
			return strings.Join(arg.Vals, ","), true
		}
	}
	return "", false
}

// Str returns the value of key, or def.
func (a Args) Str(key, def string) string {
	if v, ok := a.value(key); ok {
		return v
	}
	return def
}

// Int32 returns the value of key as a number, or def.
func (a Args) Int32(key string, def int32) int32 {
	v, ok := a.value(key)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		a.d.Fatalf(a.t, "%s=%s: want an integer", key, v)
	}
	return int32(n)
}

// Dur returns the value of key as a Go duration, or def.
func (a Args) Dur(key string, def time.Duration) time.Duration {
	v, ok := a.value(key)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		a.d.Fatalf(a.t, "%s=%s: want a duration such as 45s", key, v)
	}
	return d
}

// List returns the value of key split at commas: nil if absent, empty for
// `key=`.
func (a Args) List(key string) []string {
	v, ok := a.value(key)
	switch {
	case !ok:
		return nil
	case v == "":
		return []string{}
	}
	return strings.Split(v, ",")
}

// Assignment returns the value of key as an assignment (see
// ParseAssignment); nil if absent.
func (a Args) Assignment(key string) kafka.Assignment {
	v, ok := a.value(key)
	if !ok {
		return nil
	}
	return a.ParseAssignment(v)
}

// ParseAssignment parses "orders:0,1,2;payments:3" or with ranges
// "orders:0-2"; "-" is the empty assignment.
func (a Args) ParseAssignment(v string) kafka.Assignment {
	out, err := ParseAssignment(v)
	if err != nil {
		a.d.Fatalf(a.t, "%v", err)
	}
	return out
}

// ParseAssignment parses "orders:0,1,2;payments:3", with ranges such as
// "orders:0-2"; "-" is the empty assignment.
func ParseAssignment(v string) (kafka.Assignment, error) {
	out := kafka.Assignment{}
	if v == "-" {
		return out, nil
	}
	for _, part := range strings.Split(v, ";") {
		topic, ps, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("assignment %q: want topic:partitions, such as orders:0-2", v)
		}
		for _, p := range strings.Split(ps, ",") {
			lo, hi, isRange := strings.Cut(p, "-")
			if !isRange {
				hi = lo
			}
			l, err1 := strconv.Atoi(lo)
			h, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || h < l {
				return nil, fmt.Errorf("assignment %q: %q is not a partition or a range lo-hi", v, p)
			}
			for i := l; i <= h; i++ {
				out[topic] = append(out[topic], int32(i))
			}
		}
	}
	return out.Normalize(), nil
}

// Lines joins a command's output lines as datadriven wants them.
func Lines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// Assignment prints an assignment the way ParseAssignment reads it: "null"
// for none at all, "-" for the empty one.
func Assignment(a kafka.Assignment) string {
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

// Duration prints a virtual time in seconds ("3s", "0.5s").
func Duration(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// OrDash prints "-" for an empty string.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Note prints a model's note.
func Note(n sim.Note) string {
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
			s += " failed"
			if n.Detail != "" {
				s += ": " + n.Detail
			}
		}
	default:
		if n.Detail != "" {
			s += " " + n.Detail
		}
	}
	return s
}

// Callback prints a callback a client asked for.
func Callback(cb sim.Callback) string {
	s := fmt.Sprintf("callback %s %s", cb.Kind, Assignment(kafka.FromPartitions(cb.Partitions)))
	if cb.NextPoll {
		s += " (next poll)"
	}
	return s
}

// Timers are the timers the models of one transcript have armed, by owner
// (a client's name; "" for a coordinator).
type Timers struct {
	owners []string
	armed  map[string]map[sim.TimerID]time.Duration
}

// Add registers an owner. Timers due at the same instant fire in the order
// owners were added, then by name.
func (ts *Timers) Add(owner string) {
	if ts.armed == nil {
		ts.armed = map[string]map[sim.TimerID]time.Duration{}
	}
	if _, ok := ts.armed[owner]; !ok {
		ts.owners = append(ts.owners, owner)
		ts.armed[owner] = map[sim.TimerID]time.Duration{}
	}
}

// Apply applies owner's timer requests and prints each: "set timer
// session/c1-1 @45s", "cancel timer join". A model that forgets to re-arm
// a timer shows at the command that should have, not only at the tick
// that fires it too early.
func (ts *Timers) Apply(owner string, reqs []sim.TimerRequest) []string {
	ts.Add(owner)
	var lines []string
	for _, tr := range reqs {
		if tr.Cancel {
			delete(ts.armed[owner], tr.ID)
			lines = append(lines, "cancel timer "+tr.ID.String())
			continue
		}
		ts.armed[owner][tr.ID] = tr.At
		lines = append(lines, "set timer "+tr.ID.String()+" @"+Duration(tr.At))
	}
	return lines
}

// Advance moves *now by d, firing the timers due on the way in time order:
// each is printed ("timer join @3s", or "c1 timer heartbeat @3s" for a
// client's) and followed by what fire prints of its effects.
func (ts *Timers) Advance(now *time.Duration, d time.Duration, fire func(owner string, id sim.TimerID) []string) []string {
	until := *now + d
	var lines []string
	for {
		owner, id, at, ok := ts.Next(until)
		if !ok {
			break
		}
		*now = at
		line := "timer " + id.String() + " @" + Duration(at)
		if owner != "" {
			line = owner + " " + line
		}
		lines = append(lines, line)
		lines = append(lines, fire(owner, id)...)
	}
	*now = until
	return lines
}

// Next removes and returns the earliest timer due by until.
func (ts *Timers) Next(until time.Duration) (owner string, id sim.TimerID, at time.Duration, ok bool) {
	at = -1
	for _, o := range ts.owners {
		ids := make([]sim.TimerID, 0, len(ts.armed[o]))
		for id := range ts.armed[o] {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(a, b sim.TimerID) int { return strings.Compare(a.String(), b.String()) })
		for _, n := range ids {
			if t := ts.armed[o][n]; t <= until && (at < 0 || t < at) {
				owner, id, at, ok = o, n, t, true
			}
		}
	}
	if ok {
		delete(ts.armed[owner], id)
	}
	return owner, id, at, ok
}
