package sim

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// ledger is the protocol-neutral ground truth of a run: which process
// believes it owns which partition, and whether that partition is being
// processed. It is fed only by what a real client surfaces to the
// application (partitions assigned, revoked, lost; the process paused,
// stalled, crashed) and by the coordinator's view of who is a member, so
// every protocol is measured by the same code.
//
// Time accounting is lazy, and does not depend on where it is brought up
// to date. Each partition has an anchor (since): the instant from which
// its owners' processed counts and positions, its lag and its latency
// pieces follow in closed form, as long as nothing changes how it accrues
// (its rate, its lag line, its owners, their modes and shares). Viewing
// it at a later instant (advanceTo) computes those values from the
// anchor and moves nothing; only a change to how it accrues ends the
// stretch (settle) and books what accrued since the anchor. The integral
// measures (downtime, double ownership, zombie time) are accrued at every
// view, which splits them exactly. So a view more or less, as a query or
// a per-member shortcut makes or skips, changes no result.
type ledger struct {
	now         func() time.Duration
	windowStart time.Duration
	// windowSec is windowStart in seconds, for the latency pieces.
	windowSec float64
	// secIn and secOut are the last conversion secs made; their zero
	// values already agree, as sec(0) is 0.
	secIn  time.Duration
	secOut float64
	procs  []*procLedger
	// parts are the partitions' state by ledger index, side by side in
	// one array (part).
	parts []partLedger
	// tps are the partitions by ledger index, apart from the rest of
	// their state, so that listing a member's partitions (for a commit)
	// reads them in one run.
	tps []kafka.TopicPartition
	// topicIndex maps a topic to the ledger index of each of its partitions.
	topicIndex map[string][]int

	moved, revocations int
	// claims numbers ownerships (ownership.serial), sends commit
	// requests (commitSend.id).
	claims, sends int
	// bad counts partitions not in their converged state (see partLedger.bad).
	bad int
	// processing counts partitions someone processes now (see
	// partLedger.processing).
	processing int
	// lag aggregates Σ lag as sumA + sumS*t over partitions whose lag is not
	// pinned at zero; zeros are the instants at which draining
	// partitions reach zero lag.
	sumA, sumS float64
	zeros      zeroQueue
	// catching is set while catchUp applies the instants partitions ran
	// out of lag, so that the lag it observes on the way does not recurse.
	catching bool
	// catchProcs is catchUp's list of the processes an instant touches.
	catchProcs []int
	peakLag    float64
	// lagPath follows the total lag over the window for lag_recovery_seconds.
	lagPath lagPath
	// stepPeak is the highest total lag observed since the last chart
	// sample (Series.LagMax), within the measurement window.
	stepPeak float64

	// firstZombie and zombieMembers describe zombie processing for
	// findings; zombieProcs are the members' process indexes, ascending,
	// and zombieMembers their names in that order, so that the list does
	// not depend on which partition was viewed first.
	zombieSeen    bool
	firstZombie   time.Duration
	zombieProcs   []int
	zombieMembers []string

	timeline    bool
	doubleSince map[int]time.Duration
	findings    []Finding

	// movedLoad is Σ over moves of the moved partition's rate.
	movedLoad float64
	// pieces are the latency pieces of every partition (see latency.go),
	// from the window start on.
	pieces pieceLog
	// hist is the latency histogram of the records leaving within
	// [histA, histB], computed once for the result's two uses; adding
	// or growing a piece drops it.
	hist         *latencyHist
	histA, histB float64
	// stuckAfter is how long a partition may make no progress under a
	// current owner before it is reported stuck.
	stuckAfter time.Duration
	// duplicateReleases are the releases that left duplicates, in time
	// order, for attributing them to rebalances.
	duplicateReleases []duplicateRelease
	// walkAll makes every change to a process's claims view and refresh
	// all its partitions (touchProc), not only those the change reaches
	// (touchParts): the slow walk the tests hold the fast one to.
	walkAll bool
	// memoMin is how many partitions a member must own for catchUp to
	// keep its share memo up to date (redemand) rather than drop it.
	memoMin int
	// shareChanges is allocateAt's scratch list, reused from one call
	// to the next.
	shareChanges []shareChange
	// changing is set while touchParts changes a process's claims and
	// refreshes what they reach: until it is done, a partition's driver
	// (driverProc) and its process's counts may trail its owners.
	changing bool
	// redemands and relagging are redemand's scratch lists, reused
	// likewise.
	redemands, relagging []memoDemand
	// zeroSlack is how many entries beyond twice the partitions the
	// zero-lag queue holds before it drops its stale ones (compact):
	// compacting costs a pass over the queue, so it waits until the
	// stale entries are at least as many as the partitions.
	zeroSlack int
}

// duplicateRelease is one release of partitions without a commit.
type duplicateRelease struct {
	at      time.Duration
	records float64
}

// procLedger is the ledger's view of one process.
type procLedger struct {
	name    string
	alive   bool
	paused  bool
	stalled bool
	member  int // coordinator member ids registered for this process
	rate    float64
	// owned are the sorted partition indices the process believes it
	// owns. A change replaces the list rather than changing it in place,
	// so that a list taken before (touchParts' view of the claims before
	// a change, a commit's partitions) stays as it was.
	owned []int
	// processingCount is how many owned partitions it is processing.
	processingCount int
	// processed are the records it processed as the lag-driving owner
	// within the window (for its utilisation).
	processed float64
	// driving is how many partitions it drives the lag of; lagA + lagS·t
	// is Σ of their lag lines that are not pinned at zero (lines of
	// them), which is its backlog while it processes all it owns.
	driving    int
	lines      int
	lagA, lagS float64
	// commits lists owned for its commit requests (Positions).
	commits commitList
	// sends are its commit requests not answered yet, oldest first, and
	// accepted the last one the coordinator accepted whole. A claim's
	// count at a send is worked out from its partition's anchor when it
	// is needed, and kept in the claim (ownership.atSend) only if the
	// anchor moves past the send first: a commit costs nothing per
	// partition.
	sends    []commitSend
	accepted commitSend
	// memo is what its last sharing found (see shareMemo).
	memo shareMemo
	// recheck are partitions it owns whose lag line was set since a
	// change to its claims last looked (see touchParts), with repeats;
	// recheckAll stands for all it owns.
	recheck    []int
	recheckAll bool
	// drained are partitions it owns whose lag ran out at the instant
	// catchUp is applying, for redemand.
	drained []int
}

// commitSend is a commit request a process built at at: it covers the
// claims numbered up to maxSerial the process still holds.
type commitSend struct {
	id        int
	at        time.Duration
	maxSerial int
}

// sendCount is a claim's processed count at the send numbered id.
type sendCount struct {
	id        int
	processed float64
}

func (p *procLedger) running() bool { return p.alive && !p.paused && !p.stalled }

// ownership is one process's claim on one partition.
type ownership struct {
	proc int
	// serial tells this claim from a later one of the same process on
	// the same partition, so that a commit captured during one is not
	// applied to the next.
	serial int
	// processed are the records processed under this claim (as of the
	// partition's last view), and committed the value processed had when
	// the last commit the coordinator accepted was sent: processed -
	// committed are the records the next owner processes again. Storing
	// the captured count, not subtracting it, keeps a commit of
	// everything exact.
	processed, committed float64
	// accepted is the last whole commit (commitSend.id) folded into
	// committed, and atSend the claim's counts at unanswered sends its
	// partition's anchor has moved past.
	accepted int
	atSend   []sendCount
	// revoking is set while a revoke callback runs: the owner has stopped
	// processing the partition but still holds it.
	revoking bool
	// alloc is the records/s of the process's capacity this partition
	// gets (see allocate).
	alloc float64
	// behind is how many records the owner's own position is behind the
	// end of the partition: what its fetches can still hand it (as of
	// the partition's last view).
	behind float64
	// processed0 and behind0 are processed and behind at the partition's
	// anchor; mode0 and alloc0 are how the claim accrued from there
	// (modeNew: taken since).
	processed0, behind0 float64
	mode0               ownerMode
	alloc0              float64
}

// ownerMode is how an ownership accrues: the owner driving the lag, one
// processing beside it (a zombie), or one not processing.
type ownerMode int8

const (
	modeNew ownerMode = iota
	modeIdle
	modeDriver
	modeZombie
)

type partLedger struct {
	// The fields every advance reads come first, so that they share the
	// struct's first cache lines.
	// since is the anchor (see ledger) and viewT the last view.
	since, viewT time.Duration
	// lag model: lag at lagT, changing at slope records/s.
	lag, slope float64
	lagT       time.Duration
	// sinceLag is the lag at since, viewLag at viewT.
	sinceLag, viewLag float64
	// viewDriver is the process driving the lag since the anchor (-1:
	// none); rate0 and ver0 are the rate and lag line version then.
	viewDriver int
	rate0      float64
	ver0       int
	// driverProc is the process driving the lag now (-1: none), and
	// lineProc the one whose backlog sum holds the lag line (-1: none).
	driverProc, lineProc int
	// rate is the production rate now: base times the topic's load factor.
	rate float64
	// base is the partition's own rate and curve its topic's load over
	// time: base·curve.m(t) records were produced by t.
	base float64
	// owners in the order they took the partition; the last one that is
	// processing drives the lag model.
	owners []ownership
	// zeroFrom, zeroTo and zeroRate are the open stretch of departures at
	// zero latency (caught up), kept open while it goes on, so that a
	// steady partition adds one latency piece, not one per change.
	zeroFrom, zeroTo, zeroRate float64
	zeroOpen                   bool
	inGap                      bool
	active                     bool // contributes to sumA/sumS
	required                   bool
	isBad                      bool
	// processing is set while an owner processes the partition.
	processing bool
	// within the window: the peak lag, the largest age of the oldest
	// unprocessed record, and the moves.
	peakLag, maxAge float64

	// accrued metrics (within the window), integral until the result
	// converts them to seconds.
	downtime, maxGap, gapStart, doubleSec, zombieSec time.Duration
	duplicates                                       float64

	curve     *loadCurve
	idx       int // in ledger.parts and ledger.tps
	name      string
	lastOwner int // process of the last completed ownership, -1 if none
	zeroVer   int
	moves     int
	// lastPiece is the run of the partition's last latency piece in the
	// ledger's pieceLog, -1 if none, and lastAt its place in the run.
	lastPiece, lastAt int

	// segments is the partition's ownership history (if recorded), and
	// the segment in progress.
	segments []Segment
	segOwner string
	segState string
	segStart time.Duration

	// stuck is set while the partition has a current owner, lag and no
	// processing, since stuckFrom; stuckOwners are the processes of its
	// current owners then.
	stuck       bool
	stuckFrom   time.Duration
	stuckOwners []int
}

// defaultMemoMin is ledger.memoMin: below a few dozen partitions a
// member's whole list is as cheap to share again as its memo is to keep.
const defaultMemoMin = 32

// defaultZeroSlack is ledger.zeroSlack: a small ledger's queue is left
// alone.
const defaultZeroSlack = 4096

func newLedger(now func() time.Duration, windowStart time.Duration, timeline bool) *ledger {
	return &ledger{now: now, windowStart: windowStart, windowSec: sec(windowStart), topicIndex: map[string][]int{}, timeline: timeline, doubleSince: map[int]time.Duration{}, stuckAfter: DefaultStuckAfter, memoMin: defaultMemoMin, zeroSlack: defaultZeroSlack}
}

func (l *ledger) addProcess(name string, rate float64) int {
	l.procs = append(l.procs, &procLedger{name: name, rate: rate})
	return len(l.procs) - 1
}

// reserve makes room for n partitions more, so that adding a large
// group's partitions does not copy the array at every doubling.
func (l *ledger) reserve(n int) {
	l.parts = slices.Grow(l.parts, n)
	l.tps = slices.Grow(l.tps, n)
}

// addPartition adds a partition producing base records/s times curve's
// factor (nil: a constant rate).
func (l *ledger) addPartition(tp kafka.TopicPartition, base float64, curve *loadCurve, required bool) {
	t := l.now()
	if curve == nil {
		curve = newLoadCurve(nil)
	}
	rate := base * curve.factorAt(t)
	l.topicIndex[tp.Topic] = append(l.topicIndex[tp.Topic], len(l.parts))
	l.parts = append(l.parts, partLedger{idx: len(l.parts), name: tp.String(), rate: rate, base: base, curve: curve, since: t, viewT: t, lagT: t, viewDriver: -1, driverProc: -1, lineProc: -1, lastOwner: -1, lastPiece: -1, required: required, segStart: t})
	l.tps = append(l.tps, tp)
	// Taken after the append, which may move the array.
	p := l.part(len(l.parts) - 1)
	p.inGap, p.gapStart = true, max(t, l.windowStart)
	l.setSlope(p, rate, t)
	l.refresh(len(l.parts) - 1)
}

// part is partition idx's state. The pointer is good until the next
// addPartition, which may move the array.
func (l *ledger) part(idx int) *partLedger { return &l.parts[idx] }

func sec(d time.Duration) float64 { return d.Seconds() }

// secs is sec(d), kept for the last d converted: walking a member's
// partitions, the ledger converts the same instants (now, the instant
// their lag lines were set) over and over, and a conversion divides.
func (l *ledger) secs(d time.Duration) float64 {
	if d != l.secIn {
		l.secIn, l.secOut = d, sec(d)
	}
	return l.secOut
}

// overlap returns the part of [a, b] inside the measurement window.
func (l *ledger) overlap(a, b time.Duration) time.Duration {
	if a < l.windowStart {
		a = l.windowStart
	}
	if b <= a {
		return 0
	}
	return b - a
}

// processingOwner returns the owner driving the lag model, or -1.
func (l *ledger) processingOwner(p *partLedger, idx int) int {
	for i := len(p.owners) - 1; i >= 0; i-- {
		if o := &p.owners[i]; l.procs[o.proc].running() && !o.revoking {
			return i
		}
	}
	return -1
}

// advance brings partition idx's accounting up to now, after every
// partition that ran out of lag before now has given its owner's spare
// capacity to the others.
func (l *ledger) advance(idx int) {
	l.catchUp(l.now())
	l.advanceTo(idx, l.now())
}

// advanceAll advances partitions idxs, in order. Bringing a partition up
// to now never adds an instant at which a partition runs out of lag, so
// the instants before now are applied once, first (as in Commit and
// Backlog).
func (l *ledger) advanceAll(idxs []int) {
	t := l.now()
	l.catchUp(t)
	for _, idx := range idxs {
		l.advanceTo(idx, t)
	}
}

// advanceTo views partition idx at t: the integral measures accrue up to
// t, and each owner's processed count and position are computed at t
// from the anchor. Nothing about the partition may have changed since its
// last view, nor anything about how it accrues since its anchor.
func (l *ledger) advanceTo(idx int, t time.Duration) {
	p := l.part(idx)
	if t <= p.viewT {
		return
	}
	dt := l.overlap(p.viewT, t)
	// One pass over the owners finds the lag-driving owner (the last
	// running one, as processingOwner), the zombies and whether two
	// current members own the partition (doublyOwned).
	owner, zombies, current := -1, 0, 0
	for i := range p.owners {
		o := &p.owners[i]
		pr := l.procs[o.proc]
		if pr.current() {
			current++
		}
		if pr.running() && !o.revoking {
			owner = i
			if pr.member == 0 {
				zombies++
			}
		}
	}
	if owner < 0 && dt > 0 {
		p.downtime += dt
	}
	if current >= 2 {
		p.doubleSec += dt
	}
	if zombies > 0 && dt > 0 {
		p.zombieSec += time.Duration(zombies) * dt
		for i := range p.owners {
			proc := p.owners[i].proc
			if pr := l.procs[proc]; pr.member == 0 && pr.running() {
				l.noteZombie(proc, max(p.viewT, l.windowStart))
			}
		}
	}
	p.viewDriver = driverProc(p, owner)
	p.viewLag = l.lagAt(p, t)
	for i := range p.owners {
		o := &p.owners[i]
		o.processed, o.behind = l.ownerAt(p, o, l.modeOf(p, i, owner), t)
	}
	p.viewT = t
}

// noteZombie records that proc processed as a zombie from at on.
func (l *ledger) noteZombie(proc int, at time.Duration) {
	if i, found := slices.BinarySearch(l.zombieProcs, proc); !found {
		l.zombieProcs = slices.Insert(l.zombieProcs, i, proc)
		l.zombieMembers = slices.Insert(l.zombieMembers, i, l.procs[proc].name)
	}
	if !l.zombieSeen || at < l.firstZombie {
		l.zombieSeen, l.firstZombie = true, at
	}
}

// modeOf is how owner i of p accrues, owner being the lag-driving one.
func (l *ledger) modeOf(p *partLedger, i, owner int) ownerMode {
	o := &p.owners[i]
	switch {
	case i == owner:
		return modeDriver
	case !l.procs[o.proc].running() || o.revoking:
		return modeIdle
	}
	return modeZombie
}

// ownerAt is what claim o of p has processed, and how far its position is
// behind, at t, from the anchor on, accruing in mode: the lag-driving
// owner drains the backlog at its share; a zombie works through what its
// own position is behind, at its max-min share of its processing rate
// (share.go), and then keeps up with production; an owner not processing
// falls behind at the production rate. The processed counts are
// uncommitted work.
func (l *ledger) ownerAt(p *partLedger, o *ownership, mode ownerMode, t time.Duration) (processed, behind float64) {
	if t <= p.since {
		return o.processed0, o.behind0
	}
	// The rate and share are those since the anchor (rate0, alloc0),
	// which a change about to settle the partition may have replaced.
	full := l.secs(t - p.since)
	switch mode {
	case modeDriver:
		lag := l.lagAt(p, t)
		return o.processed0 + (p.sinceLag + p.rate0*full - lag), lag
	case modeZombie:
		done := min(o.alloc0*full, o.behind0+p.rate0*full)
		return o.processed0 + done, o.behind0 + p.rate0*full - done
	}
	return o.processed0, o.behind0 + p.rate0*full
}

// settle ends partition idx's stretch at t, its view brought there first:
// the records its lag-driving owner processed since the anchor leave
// (latency pieces), count for the owner's utilisation and the peak lag,
// and t becomes the anchor. Called when something changes how the
// partition accrues, after the view at that instant and before the new
// lag line is set.
func (l *ledger) settle(idx int, t time.Duration) {
	l.advanceTo(idx, t)
	p := l.part(idx)
	l.settleCommits(p)
	if t > p.since {
		newLag := p.viewLag
		if p.viewDriver >= 0 {
			l.departures(p, newLag, t)
			if t > l.windowStart {
				a := max(p.since, l.windowStart)
				l.procs[p.viewDriver].processed += p.rate*sec(t-a) - (newLag - l.lagSince(p, a))
			}
		}
		l.observePartition(p, newLag, t)
		p.since, p.sinceLag = t, newLag
	}
	for i := range p.owners {
		o := &p.owners[i]
		o.processed0, o.behind0 = o.processed, o.behind
	}
}

// settleCommits works out, before p's anchor moves, each claim's counts
// at the commits of its process that the anchor will move past: the last
// accepted one is folded into committed, the unanswered ones kept.
func (l *ledger) settleCommits(p *partLedger) {
	for i := range p.owners {
		o := &p.owners[i]
		pr := l.procs[o.proc]
		o.committed = l.committedOf(p, o)
		o.accepted = pr.accepted.id
		var kept []sendCount
		for _, s := range pr.sends {
			if s.maxSerial >= o.serial {
				kept = append(kept, sendCount{s.id, l.countAt(p, o, s)})
			}
		}
		o.atSend = kept
	}
}

// countAt is claim o's processed count when send s was built: kept, or
// worked out from the anchor, which s is not before.
func (l *ledger) countAt(p *partLedger, o *ownership, s commitSend) float64 {
	for _, c := range o.atSend {
		if c.id == s.id {
			return c.processed
		}
	}
	v, _ := l.ownerAt(p, o, o.mode0, s.at)
	return v
}

// committedOf is claim o's committed count, with its process's last
// accepted commit if it covers the claim.
func (l *ledger) committedOf(p *partLedger, o *ownership) float64 {
	if a := l.procs[o.proc].accepted; a.id > o.accepted && a.maxSerial >= o.serial {
		return max(o.committed, l.countAt(p, o, a))
	}
	return o.committed
}

// mark records how partition p accrues from now on: its rate, its lag
// line and each owner's mode and share.
func (l *ledger) mark(p *partLedger, owner int) {
	p.rate0, p.ver0 = p.rate, p.zeroVer
	for i := range p.owners {
		o := &p.owners[i]
		o.mode0, o.alloc0 = l.modeOf(p, i, owner), o.alloc
	}
}

// accrualChanged reports whether partition p accrues otherwise than
// mark last recorded.
func (l *ledger) accrualChanged(p *partLedger, owner int) bool {
	if p.rate != p.rate0 || p.zeroVer != p.ver0 {
		return true
	}
	if driverProc(p, owner) != p.driverProc {
		return true
	}
	for i := range p.owners {
		if o := &p.owners[i]; o.mode0 != l.modeOf(p, i, owner) || o.alloc0 != o.alloc {
			return true
		}
	}
	return false
}

func (l *ledger) lagAt(p *partLedger, t time.Duration) float64 {
	v := p.lag + p.slope*l.secs(t-p.lagT)
	if v < 0 {
		return 0
	}
	return v
}

// refresh recomputes partition idx's derived state after a change. Each
// of its jobs reads the partition as it is now and keeps one piece of
// state in step: the lag slope, the converged count, the current gap, the
// double-ownership finding and the timeline segment.
func (l *ledger) refresh(idx int) {
	p := l.part(idx)
	t := l.now()
	owner := l.processingOwner(p, idx)
	if l.accrualChanged(p, owner) {
		l.settle(idx, t)
	}
	double := l.doublyOwned(p)
	l.refreshDriver(p, owner)
	l.refreshSlope(p, owner, t)
	l.mark(p, owner)
	l.refreshConverged(p)
	if processing := owner >= 0; processing != p.processing {
		p.processing = processing
		if processing {
			l.processing++
		} else {
			l.processing--
		}
	}
	l.refreshGap(p, owner, t)
	l.refreshSafety(idx, p, double, t)
	l.refreshStuck(p, owner, t)
	if l.timeline {
		l.refreshSegment(p, owner, double, t)
	}
}

// refreshDriver moves the partition's lag line to the backlog sum of the
// process that drives it now.
func (l *ledger) refreshDriver(p *partLedger, owner int) {
	d := driverProc(p, owner)
	if d == p.driverProc {
		return
	}
	if p.driverProc >= 0 {
		l.procs[p.driverProc].driving--
	}
	if d >= 0 {
		l.procs[d].driving++
	}
	l.lineOut(p)
	p.driverProc = d
	if p.active {
		l.lineIn(p)
	}
}

// driverProc is the process of p's owner i, -1 for none.
func driverProc(p *partLedger, i int) int {
	if i < 0 {
		return -1
	}
	return p.owners[i].proc
}

// lineIn adds partition p's lag line to its driver's backlog sum.
func (l *ledger) lineIn(p *partLedger) {
	if p.driverProc < 0 {
		return
	}
	pr := l.procs[p.driverProc]
	pr.lines++
	pr.lagA += p.lag - p.slope*l.secs(p.lagT)
	pr.lagS += p.slope
	p.lineProc = p.driverProc
}

// lineOut takes partition p's lag line out of the backlog sum holding it.
// A sum left with no lines is reset to zero, so that rounding does not
// build up over a run.
func (l *ledger) lineOut(p *partLedger) {
	if p.lineProc < 0 {
		return
	}
	pr := l.procs[p.lineProc]
	pr.lines--
	pr.lagA -= p.lag - p.slope*sec(p.lagT)
	pr.lagS -= p.slope
	if pr.lines == 0 {
		pr.lagA, pr.lagS = 0, 0
	}
	p.lineProc = -1
}

// current reports whether the process is a live member of the group as
// the coordinator sees it: only such owners count for safety.
func (p *procLedger) current() bool { return p.member > 0 && p.alive }

// doublyOwned is the safety predicate: two or more current group members
// believe they own the partition.
func (l *ledger) doublyOwned(p *partLedger) bool {
	n := 0
	for i := range p.owners {
		if l.procs[p.owners[i].proc].current() {
			n++
		}
	}
	return n >= 2
}

// refreshSlope sets the lag slope: the production rate, less the owner's
// share of its processing rate if someone processes the partition.
func (l *ledger) refreshSlope(p *partLedger, owner int, t time.Duration) {
	slope := p.rate
	if owner >= 0 {
		slope = p.rate - p.owners[owner].alloc
	}
	if slope != p.slope || t == p.lagT {
		l.setSlope(p, slope, t)
	}
}

// refreshConverged keeps l.bad in step. Converged: a required partition
// has exactly one owner, a current member; an unrequired one has none.
func (l *ledger) refreshConverged(p *partLedger) {
	bad := len(p.owners) != 0
	if p.required {
		bad = !(len(p.owners) == 1 && l.procs[p.owners[0].proc].current())
	}
	if bad != p.isBad {
		if bad {
			l.bad++
		} else {
			l.bad--
		}
		p.isBad = bad
	}
}

// refreshGap opens or closes the partition's current stretch without
// processing, keeping the longest one.
func (l *ledger) refreshGap(p *partLedger, owner int, t time.Duration) {
	if owner < 0 && !p.inGap {
		p.inGap, p.gapStart = true, max(t, l.windowStart)
	} else if owner >= 0 && p.inGap {
		p.inGap = false
		p.maxGap = max(p.maxGap, max(t, l.windowStart)-p.gapStart)
	}
}

// refreshSafety reports a double_ownership finding when the partition
// becomes doubly owned, once per stretch.
func (l *ledger) refreshSafety(idx int, p *partLedger, double bool, t time.Duration) {
	if !double {
		if len(l.doubleSince) > 0 {
			delete(l.doubleSince, idx)
		}
		return
	}
	if _, ok := l.doubleSince[idx]; ok {
		return
	}
	l.doubleSince[idx] = t
	var names []string
	for _, o := range p.owners {
		names = append(names, l.procs[o.proc].name)
	}
	l.findings = append(l.findings, Finding{Kind: "double_ownership", Safety: true, At: sec(t), Members: names, Partitions: []string{p.name}, Detail: "two current group members believe they own " + p.name})
}

// refreshSegment closes the partition's timeline segment when its owner
// or state changed.
func (l *ledger) refreshSegment(p *partLedger, owner int, double bool, t time.Duration) {
	segOwner, segState := "", "unowned"
	switch {
	case double:
		segState = "double"
		segOwner = l.procs[p.owners[len(p.owners)-1].proc].name
	case owner >= 0:
		segState = "processing"
		segOwner = l.procs[p.owners[owner].proc].name
	case len(p.owners) > 0:
		segState = "stalled"
		segOwner = l.procs[p.owners[len(p.owners)-1].proc].name
	}
	if segOwner != p.segOwner || segState != p.segState {
		if t > p.segStart {
			p.segments = append(p.segments, Segment{Partition: p.name, Owner: p.segOwner, State: p.segState, Start: sec(p.segStart), End: sec(t)})
		}
		p.segOwner, p.segState, p.segStart = segOwner, segState, t
	}
}

// setSlope rebases partition p's lag line at t with a new slope and keeps
// the aggregate lag in step.
func (l *ledger) setSlope(p *partLedger, slope float64, t time.Duration) {
	l.observeLag(t)
	if t > p.since {
		l.settle(p.idx, t)
	}
	cur := l.lagAt(p, t)
	l.lineOut(p)
	if p.active {
		l.sumA -= p.lag - p.slope*l.secs(p.lagT)
		l.sumS -= p.slope
		p.active = false
	}
	p.lag, p.lagT, p.slope = cur, t, slope
	p.zeroVer++
	l.noteLine(p)
	if cur == 0 && slope > 0 && p.driverProc >= 0 {
		// Its processing owners' demands grow unbounded from the next
		// instant. (With no driver, none of its owners processes it.)
		l.forget(p)
	}
	if cur == 0 && slope <= 0 {
		return
	}
	p.active = true
	l.sumA += p.lag - p.slope*l.secs(p.lagT)
	l.sumS += p.slope
	l.lineIn(p)
	if slope < 0 {
		if len(l.zeros.rank) != len(l.parts) {
			l.rankByName()
		}
		l.zeros.push(zeroAt{at: p.lagT + time.Duration(cur/(-slope)*float64(time.Second)), part: p.idx, ver: p.zeroVer})
		if l.zeros.entries > 2*len(l.parts)+l.zeroSlack {
			l.zeros.compact(func(part int) int { return l.part(part).zeroVer })
		}
	}
}

// totalLag returns Σ lag at t (t must not go backwards). Every instant the
// total's slope changes passes through here (a ledger change observes the
// lag first; a partition draining to zero is found here), so the lag path
// over the window is recorded exactly.
func (l *ledger) totalLag(t time.Duration) float64 {
	l.catchUp(t)
	l.startLagPath(t)
	v := l.sumLag(t)
	if l.lagPath.started {
		l.lagPath.record(t, v)
	}
	return v
}

// startLagPath begins the lag path at the window start, once the ledger
// reaches it: every partition that ran out of lag before the window start
// is pinned by then, and nothing has changed a lag line past it yet.
func (l *ledger) startLagPath(t time.Duration) {
	if l.lagPath.started || t < l.windowStart {
		return
	}
	v := l.sumLag(l.windowStart)
	l.peakLag = max(l.peakLag, v)
	l.lagPath.begin(l.windowStart, v)
}

func (l *ledger) sumLag(t time.Duration) float64 {
	return max(0, l.sumA+l.sumS*sec(t))
}

// observeLag records the total lag at t for the peak. Between two ledger
// changes every partition's lag is convex in time, so the total is too and
// its maximum is at a change: observing just before each change is exact.
func (l *ledger) observeLag(t time.Duration) {
	if t < l.windowStart {
		return
	}
	v := l.totalLag(t)
	if v > l.peakLag {
		l.peakLag = v
		l.lagPath.raiseFloor(l.lagPath.base + max(1, 0.01*v))
	}
	l.stepPeak = max(l.stepPeak, v)
}

// lagRecovery is the time from the window start until the total lag is
// back to its level at the window start (within 1% of the peak, or one
// record) for good; the whole window if it never is.
func (l *ledger) lagRecovery() time.Duration {
	return l.lagPath.recovery(l.lagPath.base + max(1, 0.01*l.peakLag))
}

// --- ownership changes, as the application sees them ---

// indexes resolves topic-partitions to ledger indexes, skipping unknown
// ones. Partitions come grouped by topic, so one map lookup serves a run
// of them.
func (l *ledger) indexes(tps []kafka.TopicPartition) []int {
	out := make([]int, 0, len(tps))
	topic, idx := "", []int(nil)
	for _, tp := range tps {
		if tp.Topic != topic || idx == nil {
			topic, idx = tp.Topic, l.topicIndex[tp.Topic]
		}
		if tp.Partition >= 0 && int(tp.Partition) < len(idx) {
			out = append(out, idx[tp.Partition])
		}
	}
	return out
}

// touchProc advances every partition proc owns, runs change, and refreshes
// them: a change to a process can change the share of all its partitions.
func (l *ledger) touchProc(proc int, change func()) { l.touchParts(proc, nil, change) }

// touchParts is touchProc for a change to proc's claims on idxs alone
// (taken, revoking, released; nil: a change to the process). The
// process itself does not change, so its other partitions are refreshed
// only where refresh would change something (stale), and viewed only
// then (by settle).
func (l *ledger) touchParts(proc int, idxs []int, change func()) {
	pr := l.procs[proc]
	before := pr.owned
	all := idxs == nil || l.walkAll
	// A change names its partitions in the ledger's order as a rule;
	// those proc neither held nor holds are not its to view or refresh
	// (Assign views the ones it adds itself).
	if !all && !slices.IsSorted(idxs) {
		idxs = slices.Sorted(slices.Values(idxs))
	}
	var held []int
	if !all && slices.Equal(idxs, before) {
		// An eager revoke names exactly what the member holds, in its
		// order: nothing to look up one by one.
		all = true
	}
	if !all {
		for k, idx := range idxs {
			if _, in := slices.BinarySearch(before, idx); in && (k == 0 || idx != idxs[k-1]) {
				held = append(held, idx)
			}
		}
		// Another change that reaches all the member holds (an
		// assignment to a member holding nothing, a revoke naming
		// partitions besides its own) leaves nothing to skip either.
		all = len(held) == len(before)
	}
	if all {
		l.advanceAll(before)
	} else {
		l.advanceAll(held)
	}
	l.changing = true
	defer func() { l.changing = false }()
	change()
	if !slices.Equal(before, pr.owned) {
		pr.commits.listed = false
	}
	if len(pr.owned) == 0 {
		// No claim is left for an unanswered commit to cover.
		pr.sends = nil
	}
	if all {
		// The process's change can stop it driving the lag of any of
		// its partitions, which changes what its co-owners ask for.
		reached := mergeSorted(before, pr.owned)
		for _, idx := range reached {
			l.forgetOthers(l.part(idx), proc)
		}
		l.recount(proc)
		// The walk refreshes everything noted so far; what it sets is
		// noted again.
		pr.recheck, pr.recheckAll = pr.recheck[:0], false
		for _, idx := range reached {
			l.refresh(idx)
		}
		return
	}
	t := l.now()
	touched := make([]int, 0, len(held))
	for k, idx := range idxs {
		if k > 0 && idx == idxs[k-1] {
			continue
		}
		_, held := slices.BinarySearch(before, idx)
		_, holds := slices.BinarySearch(pr.owned, idx)
		if held || holds {
			touched = append(touched, idx)
			l.forgetOthers(l.part(idx), proc)
		}
	}
	shared := l.allocateParts(proc, touched, t)
	// The others are refreshed where refresh would change something:
	// where the share moved, or where a lag line was set since the last
	// such walk (recheck); every other one is as its last refresh left it.
	var others []int
	for _, c := range shared {
		others = append(others, c.idx)
	}
	if pr.recheckAll {
		others = append(others, pr.owned...)
	} else {
		others = append(others, pr.recheck...)
	}
	pr.recheck, pr.recheckAll = pr.recheck[:0], false
	slices.Sort(others)
	var refresh []int
	for _, idx := range slices.Compact(others) {
		if _, in := slices.BinarySearch(touched, idx); in {
			continue
		}
		if p := l.part(idx); ownerIndex(p, proc) >= 0 && l.stale(p, proc, t) {
			refresh = append(refresh, idx)
		}
	}
	for _, idx := range mergeSorted(touched, refresh) {
		l.refresh(idx)
	}
}

// noteLine adds p to its owners' recheck lists when its lag line is set
// (or pinned at zero) at t: refresh rebases a line set at this very
// instant, and sets the slope a pinned line's driver's share makes.
// A list grown past its process's partitions gives way to the whole
// list.
func (l *ledger) noteLine(p *partLedger) {
	for i := range p.owners {
		pr := l.procs[p.owners[i].proc]
		if pr.recheckAll {
			continue
		}
		if len(pr.recheck) > 2*len(pr.owned)+16 {
			pr.recheck, pr.recheckAll = pr.recheck[:0], true
			continue
		}
		pr.recheck = append(pr.recheck, p.idx)
	}
}

// stale reports whether refresh would change partition p, which proc
// owns, at t, when only proc's share of it may have changed since every
// partition was last refreshed or marked (which leaves each claim's
// alloc0 at its alloc, its mode0 at its mode, and driverProc at the
// process driving the lag): whether proc's share changed, or the lag
// slope is not what the driver's share makes it (catchUp pins it at
// zero when the lag runs out while the share stays), or the lag line was
// set at t, which refresh rebases all the same.
func (l *ledger) stale(p *partLedger, proc int, t time.Duration) bool {
	if o := &p.owners[ownerIndex(p, proc)]; o.alloc != o.alloc0 || t == p.lagT {
		return true
	}
	slope := p.rate
	if p.driverProc >= 0 {
		slope -= p.owners[ownerIndex(p, p.driverProc)].alloc
	}
	return slope != p.slope
}

// mergeSorted returns the union of the ascending lists a and b (each
// without repeats), ascending, in one pass; a itself when b adds nothing.
func mergeSorted(a, b []int) []int {
	if slices.Equal(a, b) {
		return a
	}
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// withoutSorted returns a new list of the partitions of owned not in
// gone (both ascending, gone within owned): the runs between the gone
// ones are copied whole, as a member of a big group lets go of a few of
// its thousand at a time.
func withoutSorted(owned, gone []int) []int {
	kept := make([]int, 0, len(owned)-len(gone))
	from := 0
	for _, idx := range gone {
		at, found := slices.BinarySearch(owned[from:], idx)
		if !found {
			continue
		}
		kept = append(kept, owned[from:from+at]...)
		from += at + 1
	}
	return append(kept, owned[from:]...)
}

// recount counts the partitions proc processes and shares its capacity
// over them again.
func (l *ledger) recount(proc int) { l.allocate(proc) }

// ownershipOf returns proc's claim on partition idx, or nil.
func (l *ledger) ownershipOf(idx, proc int) *ownership {
	p := l.part(idx)
	for i := range p.owners {
		if p.owners[i].proc == proc {
			return &p.owners[i]
		}
	}
	return nil
}

// Assign records that proc's application was handed tps.
func (l *ledger) Assign(proc int, tps []kafka.TopicPartition) {
	pr := l.procs[proc]
	idxs := slices.DeleteFunc(l.indexes(tps), func(idx int) bool {
		_, has := slices.BinarySearch(pr.owned, idx)
		return has
	})
	if len(idxs) == 0 {
		return
	}
	l.advanceAll(idxs)
	l.touchParts(proc, idxs, func() {
		for _, idx := range idxs {
			p := l.part(idx)
			if p.lastOwner >= 0 && p.lastOwner != proc && l.now() >= l.windowStart {
				l.moved++
				l.movedLoad += p.rate
				p.moves++
			}
			p.lastOwner = proc
			l.claims++
			behind := l.lagAt(p, l.now())
			p.owners = append(p.owners, ownership{proc: proc, serial: l.claims, behind: behind, behind0: behind})
		}
		// A merge, not a sort of the whole list: a member of a big group
		// takes a few partitions at a time beside its thousand.
		added := idxs
		if !slices.IsSorted(added) {
			added = slices.Sorted(slices.Values(added))
		}
		pr.owned = mergeSorted(pr.owned, added)
	})
}

// StartRevoke records that proc stopped processing tps to revoke them.
func (l *ledger) StartRevoke(proc int, tps []kafka.TopicPartition) {
	idxs := l.indexes(tps)
	l.touchParts(proc, idxs, func() {
		for _, idx := range idxs {
			if o := l.ownershipOf(idx, proc); o != nil {
				o.revoking = true
			}
		}
	})
}

// Release records that proc no longer owns tps: revoked (counted as
// revocations) or lost. committed tells whether its last processed offsets
// were committed first, which succeeds only for a current member;
// otherwise the uncommitted records will be processed again.
func (l *ledger) Release(proc int, tps []kafka.TopicPartition, revoked, committed bool) {
	pr := l.procs[proc]
	committed = committed && pr.member > 0
	idxs := l.indexes(tps)
	dup := 0.0
	l.touchParts(proc, idxs, func() {
		// A process owns a partition exactly when it is among the
		// partition's owners, so the owners tell what to release, and
		// the process's list is filtered once at the end rather than
		// cut once per partition.
		var released []int
		for _, idx := range idxs {
			p := l.part(idx)
			i := ownerIndex(p, proc)
			if i < 0 {
				continue
			}
			if o := &p.owners[i]; !committed && l.now() >= l.windowStart {
				d := o.processed - l.committedOf(p, o)
				p.duplicates += d
				dup += d
			}
			p.owners = slices.Delete(p.owners, i, i+1)
			released = append(released, idx)
			if revoked && l.now() >= l.windowStart {
				l.revocations++
			}
		}
		if len(released) == len(pr.owned) {
			// An eager revocation lets go of everything.
			pr.owned = nil
		} else if len(released) > 0 {
			slices.Sort(released)
			pr.owned = withoutSorted(pr.owned, released)
		}
	})
	if dup > 0 {
		l.duplicateReleases = append(l.duplicateReleases, duplicateRelease{at: l.now(), records: dup})
	}
}

// HeldBatch records that proc's application goes on for d processing the
// records of tps it already holds, although the client has let go of them:
// a consumer-protocol client without a listener loses its partitions on
// its background thread when it learns it was fenced, while the
// application finishes the batch its last poll() returned. Those records
// are zombie processing, and uncommitted: Release counts them as
// duplicates. Call it just before Release.
func (l *ledger) HeldBatch(proc int, tps []kafka.TopicPartition, d time.Duration) {
	pr := l.procs[proc]
	if d <= 0 || pr.member > 0 || !pr.running() || l.now() < l.windowStart {
		return
	}
	l.catchUp(l.now())
	for _, idx := range l.indexes(tps) {
		o := l.ownershipOf(idx, proc)
		if o == nil || o.revoking {
			continue
		}
		// The batch is booked at once: the stretch ends here, and the
		// records count from the new anchor.
		l.settle(idx, l.now())
		done := min(o.alloc*sec(d), o.behind)
		o.processed += done
		o.behind -= done
		o.processed0, o.behind0 = o.processed, o.behind
		p := l.part(idx)
		p.zombieSec += d
		l.noteZombie(proc, l.now())
		l.forget(p)
	}
}

// ReleaseAll drops everything proc owns without a commit (crash, lost).
func (l *ledger) ReleaseAll(proc int) {
	l.Release(proc, l.ownedBy(proc), false, false)
}

func (l *ledger) ownedBy(proc int) []kafka.TopicPartition {
	var out []kafka.TopicPartition
	for _, idx := range l.procs[proc].owned {
		out = append(out, l.tps[idx])
	}
	return out
}

// Positions are the per-partition counts a commit carries: what the
// member had processed of each partition it held when it built the
// request, the offsets Kafka's client sends (subscriptions.allConsumed()).
// They are kept as the request (send) and the partitions it covers; the
// counts are worked out from the ledger when the answer comes.
type Positions struct {
	tps  []kafka.TopicPartition
	idxs []int
	send commitSend
}

// Positions captures what proc has processed of each partition it owns
// now, for a commit sent now. Its partitions stay as they are until the
// ledger is told that nothing reads them any more (Answered).
func (l *ledger) Positions(proc int) Positions {
	pr := l.procs[proc]
	t := l.now()
	l.catchUp(t)
	// The list changes only with the process's claims, and never while
	// a request that carries it is unanswered (commitList).
	pr.commits.list(pr.owned, l.tps)
	pos := Positions{tps: pr.commits.current(), idxs: pr.commits.idxs}
	if len(pr.owned) > 0 {
		l.sends++
		pos.send = commitSend{id: l.sends, at: t, maxSerial: l.claims}
		pr.sends = append(pr.sends, pos.send)
		pr.commits.carry(pos.send.id)
	}
	return pos
}

// Answered tells the ledger that nothing reads the request pos was
// captured for any more: its answer has been applied, and the request
// goes no further. Until then its partitions stay as they were.
func (l *ledger) Answered(proc int, pos Positions) {
	if pos.send.id != 0 {
		l.procs[proc].commits.answered(pos.send.id)
	}
}

// claimAt is owner i of p's processed count and position at t, without
// viewing the partition: nothing about it has changed since its anchor,
// or since the view at t. The lag-driving owner's position is the lag
// line's (when it has just taken over the lag, the view taken before
// the change still shows its own).
func (l *ledger) claimAt(p *partLedger, i int, t time.Duration) (processed, behind float64) {
	owner := l.processingOwner(p, p.idx)
	if t == p.viewT {
		o := &p.owners[i]
		processed, behind = o.processed, o.behind
	} else {
		processed, behind = l.ownerAt(p, &p.owners[i], l.modeOf(p, i, owner), t)
	}
	if i == owner {
		behind = l.lagAt(p, t)
	}
	return processed, behind
}

// queryAt is claimAt between changes, when the partition's driver is
// known without asking its owners (p.driverProc): for Positions and
// Backlog, on every commit and poll.
func (l *ledger) queryAt(p *partLedger, i int, pr *procLedger, t time.Duration) (processed, behind float64) {
	o := &p.owners[i]
	driver := p.driverProc == o.proc
	switch {
	case t == p.viewT:
		processed, behind = o.processed, o.behind
	case driver:
		processed, behind = l.ownerAt(p, o, modeDriver, t)
	case !pr.running() || o.revoking:
		processed, behind = l.ownerAt(p, o, modeIdle, t)
	default:
		processed, behind = l.ownerAt(p, o, modeZombie, t)
	}
	if driver {
		behind = l.lagAt(p, t)
	}
	return processed, behind
}

// ownerIndex is proc's place among p's owners, or -1.
func ownerIndex(p *partLedger, proc int) int {
	for i := range p.owners {
		if p.owners[i].proc == proc {
			return i
		}
	}
	return -1
}

// Partitions are the partitions pos covers, in the ledger's order.
func (pos Positions) Partitions() []kafka.TopicPartition { return pos.tps }

// Commit records a successful commit of everything proc processed so far.
func (l *ledger) Commit(proc int) {
	pos := l.Positions(proc)
	l.CommitPositions(proc, pos, nil)
	l.Answered(proc, pos)
}

// CommitPositions records that the coordinator answered proc's commit of
// pos, accepting every partition accept reports true (nil accepts all):
// each such partition counts as committed up to what was processed when
// the request was built. A partition proc has let go of since, or holds
// again under a new claim, is left alone: the count belonged to the old
// claim, whose uncommitted records were settled when it ended. A later
// request counts at least as much of every claim both cover, so one
// accepted whole supersedes the requests before it.
func (l *ledger) CommitPositions(proc int, pos Positions, accept func(kafka.TopicPartition) bool) {
	pr := l.procs[proc]
	s := pos.send
	at := slices.IndexFunc(pr.sends, func(x commitSend) bool { return x.id == s.id })
	if at < 0 {
		return // superseded, or nothing was owned
	}
	switch {
	case pr.member == 0:
		// A fenced member's commit fails.
	case accept == nil:
		pr.accepted = s
		pr.sends = slices.Delete(pr.sends, 0, at+1)
		return
	default:
		for j, idx := range pos.idxs {
			if !accept(pos.tps[j]) {
				continue
			}
			p := l.part(idx)
			if i := ownerIndex(p, proc); i >= 0 && p.owners[i].serial <= s.maxSerial {
				o := &p.owners[i]
				o.committed = max(o.committed, l.countAt(p, o, s))
			}
		}
	}
	pr.sends = slices.Delete(pr.sends, at, at+1)
}

// SetProcess updates a process's physical state.
func (l *ledger) SetProcess(proc int, alive, paused, stalled bool) {
	pr := l.procs[proc]
	if pr.alive == alive && pr.paused == paused && pr.stalled == stalled {
		return
	}
	l.touchProc(proc, func() { pr.alive, pr.paused, pr.stalled = alive, paused, stalled })
}

// SetMember changes the count of coordinator member ids of a process.
func (l *ledger) SetMember(proc int, delta int) {
	pr := l.procs[proc]
	l.touchProc(proc, func() { pr.member += delta })
}

// SetRequired marks which partitions must be owned for the group to be
// converged (those of topics some live member subscribes to).
func (l *ledger) SetRequired(required func(topic string) bool) {
	for idx := range l.parts {
		p := l.part(idx)
		r := required(l.tps[idx].Topic)
		if r != p.required {
			l.advance(idx)
			p.required = r
			l.refresh(idx)
		}
	}
}

// Converged reports whether every partition is in its converged state.
func (l *ledger) Converged() bool { return l.bad == 0 }

// BadPartitions lists the partitions that are not in their converged state.
func (l *ledger) BadPartitions() []string {
	var out []string
	for i := range l.parts {
		p := l.part(i)
		if p.isBad {
			out = append(out, p.name)
		}
	}
	return out
}

// Backlog is how many records proc's fetches can hand it now: Σ over the
// partitions it owns of how far its position is behind their end. While
// it drives the lag of every partition it processes, that is the sum of
// their lag lines, kept per process; otherwise (a zombie claim, or the
// process stopped) the partitions are walked.
func (l *ledger) Backlog(proc int) float64 {
	t := l.now()
	pr := l.procs[proc]
	l.catchUp(t)
	if pr.running() && pr.driving == pr.processingCount {
		if pr.lines == 0 {
			return 0
		}
		return max(0, pr.lagA+pr.lagS*sec(t))
	}
	total := 0.0
	for _, idx := range pr.owned {
		p := l.part(idx)
		if i := ownerIndex(p, proc); i >= 0 && !p.owners[i].revoking {
			_, behind := l.queryAt(p, i, pr, t)
			total += behind
		}
	}
	return total
}

// Owns reports whether proc owns anything.
func (l *ledger) Owns(proc int) int { return len(l.procs[proc].owned) }

// ProcessingFraction is the fraction of partitions being processed now.
func (l *ledger) ProcessingFraction() float64 {
	if len(l.parts) == 0 {
		return 0
	}
	return float64(l.processing) / float64(len(l.parts))
}

// finish closes every open interval at the horizon.
func (l *ledger) finish() {
	t := l.now()
	l.observeLag(t)
	l.catchUp(t)
	for idx := range l.parts {
		p := l.part(idx)
		l.settle(idx, t)
		if p.inGap {
			p.maxGap = max(p.maxGap, t-p.gapStart)
		}
		l.closeZero(p)
		l.censor(p, t)
		if p.stuck {
			l.closeStuck(p, t)
		}
		if l.timeline && t > p.segStart {
			p.segments = append(p.segments, Segment{Partition: p.name, Owner: p.segOwner, State: p.segState, Start: sec(p.segStart), End: sec(t)})
		}
	}
}

// partitionMetrics fills in the metrics the ledger alone measures: moves,
// revocations, downtime, gaps, double ownership, zombie processing,
// duplicates and the peak lag.
func (l *ledger) partitionMetrics(m *Metrics) {
	m.MovedPartitions = l.moved
	m.Revocations = l.revocations
	// Sums run in partition order so that floating-point results do not
	// depend on the order events happened to touch partitions.
	// Each partition's durations are converted to seconds once, here.
	var maxGap time.Duration
	for i := range l.parts {
		p := l.part(i)
		m.DowntimePartitionSeconds += sec(p.downtime)
		maxGap = max(maxGap, p.maxGap)
		m.DoubleOwnershipSeconds += sec(p.doubleSec)
		m.ZombieProcessingSeconds += sec(p.zombieSec)
		m.DuplicateRecords += p.duplicates
		m.PeakPartitionLagRecords = max(m.PeakPartitionLagRecords, p.peakLag)
		m.MaxLagSeconds = max(m.MaxLagSeconds, p.maxAge)
	}
	m.MaxPartitionGapSeconds = sec(maxGap)
	m.DuplicateRecords = roundRecords(m.DuplicateRecords)
	m.PeakLagRecords = l.peakLag
	m.MovedLoadRecordsPerSecond = l.movedLoad
	a, b := sec(l.windowStart), sec(l.now())
	st := latencyFromHist(l.pieces.read(), a, b, l.latencyHist(a, b))
	m.LatencyP50Seconds, m.LatencyP99Seconds, m.LatencyP999Seconds, m.LatencyMaxSeconds = st.P50, st.P99, st.P999, st.Max
}

// recordGrain is the finest record count a result prints: the ledger's
// counts are sums of products of rates and float seconds, exact only to
// about 1e-12 of their size, and no measure needs a millionth of a record.
const recordGrain = 1e-6

// roundRecords rounds a record count to recordGrain, so that a count of
// whole records prints as one (3000, not 2999.999999999999).
func roundRecords(x float64) float64 { return math.Round(x/recordGrain) / (1 / recordGrain) }

// latencyHist returns the histogram of the records leaving within [a, b].
func (l *ledger) latencyHist(a, b float64) *latencyHist {
	if l.hist == nil || l.histA != a || l.histB != b {
		l.hist, l.histA, l.histB = histOver(l.pieces.read(), a, b), a, b
	}
	return l.hist
}

// history returns every partition's history, partitions ordered by topic
// and then numerically.
func (l *ledger) history() []Segment {
	order := make([]int, len(l.parts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return l.tps[a].Compare(l.tps[b]) })
	n := 0
	for i := range l.parts {
		n += len(l.parts[i].segments)
	}
	out := make([]Segment, 0, n)
	for _, idx := range order {
		out = append(out, l.part(idx).segments...)
	}
	return out
}

// rankByName renumbers the partitions in the order of their names.
func (l *ledger) rankByName() {
	order := make([]int, len(l.parts))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(l.part(a).name, l.part(b).name) })
	l.zeros.rank = slices.Grow(l.zeros.rank[:0], len(order))[:len(order)]
	for r, idx := range order {
		l.zeros.rank[idx] = int32(r)
	}
}
