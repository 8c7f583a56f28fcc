package sim

import (
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// The protocol seam. Protocol models are state machines in the style of
// etcd's raft: the simulator hands them one input at a time (a message, a
// timer firing, a poll of the application thread, a scenario action) with
// the current virtual time, and they answer by appending effects to an
// *Effects: messages to send, timers to set or cancel, callbacks for the
// application thread to run, and notes for the trace and the metrics. They
// never read a clock, start a goroutine or draw randomness of their own.
//
// A client sends each request from one of its threads (Effects.Request);
// the coordinator answers the endpoint the request came from
// (Effects.Send), and the simulator hands the answer to the thread that
// sent the request. So the coordinator knows nothing of a client's
// threads. Timers are named by a TimerID (timerid.go): a kind, which a
// model switches on, and, for a coordinator's timer of one member, that
// member's handle and id. What a model will do next (after a timer, after
// its callbacks) is in its own fields, where State() and transcripts see
// it.
//
// The simulator owns everything physical: which thread of a consumer process
// is frozen by a GC pause or blocked by slow processing, how long a message
// takes, which messages a network partition drops, and which partitions the
// application believes it owns (the ownership ledger, fed only by the
// callbacks a client asks for).

// Endpoint is one end of a connection: a consumer process incarnation, or
// the group coordinator.
type Endpoint struct {
	// Process is the scenario member id, or "coordinator" (Coordinator).
	Process string `json:"process"`
	// Incarnation counts the process's starts; a restarted process does not
	// receive responses addressed to its previous life.
	Incarnation int `json:"incarnation,omitempty"`
	// thread is, on the endpoint a request came from, the client thread
	// that sent it. A model answers the endpoint it was handed, so the
	// response goes back to that thread without the coordinator knowing
	// a client's threads.
	thread Thread
	// slot is, on an endpoint of a member process that the simulator
	// made, the process's index in the run plus one, every incarnation
	// alike; 0 on any other (the coordinator's, one made by hand, as
	// transcripts do). A model answers the endpoint it was handed, so
	// the simulator finds the process of an answer by it rather than by
	// name.
	slot int32
}

// coordinatorProcess names the group coordinator's endpoint.
const coordinatorProcess = "coordinator"

// Coordinator is the group coordinator's endpoint.
var Coordinator = Endpoint{Process: coordinatorProcess}

// Thread names the consumer thread that handles an input. Inputs for a
// blocked thread wait until it runs again.
type Thread int

const (
	// AppThread is the application thread: poll(), callbacks, and the
	// classic JoinGroup/SyncGroup handling that happens inside poll().
	AppThread Thread = iota
	// BackgroundThread is the heartbeat (classic) or network (consumer
	// protocol) thread; only a whole-process pause stops it.
	BackgroundThread
)

// Message is a protocol message. Kind names it in traces ("JoinGroup").
// The protocol models send pointers to their messages, which nobody
// changes once sent: a struct put in an interface is copied to the heap,
// and a model that sends many messages of a kind makes them in chunks
// instead (protocols/internal/slab).
type Message interface {
	Kind() string
}

// A HeldRequest is a request the coordinator may hold unanswered: a
// JoinGroup until the join phase completes, a SyncGroup until the
// leader's assignment. The broker reads one request at a time from a
// connection and the next only once it has answered the last (SocketServer
// mutes the channel: KafkaChannel's MUTED_AND_RESPONSE_PENDING), so while
// one is held every later request of that member on the connection
// waits: a LeaveGroup sent by close() reaches the group only after the
// join it was part of has completed.
type HeldRequest interface {
	Message
	MayBeHeld()
}

// Send asks the network to deliver a message.
type Send struct {
	To  Endpoint
	Msg Message
	// Thread is, for a client's request, the thread that sends it; the
	// response comes back to it. The coordinator leaves it zero: it
	// answers the endpoint a request came from, which carries the thread.
	Thread Thread
}

// TimerRequest sets or cancels a timer of the stepping model. Setting a
// timer that exists replaces it.
type TimerRequest struct {
	ID     TimerID
	At     time.Duration
	Cancel bool
	// Thread is the consumer thread a client's timer fires on; the
	// coordinator leaves it zero, as its timers always fire on time.
	Thread Thread
}

// CallbackKind names a ConsumerRebalanceListener callback.
type CallbackKind int

const (
	CallbackRevoked CallbackKind = iota
	CallbackAssigned
	CallbackLost
)

func (c CallbackKind) String() string {
	switch c {
	case CallbackRevoked:
		return "revoked"
	case CallbackAssigned:
		return "assigned"
	}
	return "lost"
}

// Callback asks the application thread to run a rebalance callback. The
// ledger learns of ownership changes only through callbacks: a revoke stops
// processing at once and releases ownership when it returns (after the
// commit), an assign takes ownership when it starts, a lost drops ownership
// at once without a commit.
type Callback struct {
	Kind       CallbackKind
	Partitions []kafka.TopicPartition
	// Commit tells that the client auto-commits synchronously before this
	// revoke, when enable.auto.commit is on: the classic client in
	// onJoinPrepare and close (ConsumerCoordinator), the consumer
	// protocol's before any revocation (maybeAutoCommitSyncBeforeRevocation).
	// The classic client's revocation after SyncGroup (onJoinComplete)
	// commits nothing of its own. Whatever the client does, a listener
	// that commits (commit_on_revoke) commits in every revoke.
	Commit bool
	// Token is handed back in CallbackDone.
	Token int
	// Thread runs the callback: the application thread inside poll() (a
	// rebalance listener), or, for a consumer-protocol client without a
	// listener, the background thread, which revokes, commits and
	// acknowledges without waiting for poll().
	Thread Thread
	// NextPoll says the background thread asks for this callback in
	// reaction to one the application thread just ran: the poll() that
	// ran that one has already handled its background events, so this
	// one waits for the next poll(), after the batch the current one
	// returns, if the member has records to process
	// (AsyncKafkaConsumer.poll handles background events before
	// pollForFetches).
	NextPoll bool
}

// NoteKind names a fact a model reports for metrics and the trace.
type NoteKind string

const (
	// Coordinator notes.
	NoteMemberAdded   NoteKind = "member_added"   // Process joined as MemberID
	NoteMemberRemoved NoteKind = "member_removed" // MemberID left or was fenced (Detail says why)
	NoteRebalance     NoteKind = "rebalance"      // a classic generation started (its join phase completed), or a group epoch bump
	NoteGroupState    NoteKind = "group_state"    // Detail is the new state
	NoteGroupType     NoteKind = "group_type"     // Detail is classic | consumer

	// Client notes.
	NoteRebalanceStart NoteKind = "rebalance_start" // a client began a rebalance (first JoinGroup / RECONCILING)
	NoteRebalanceEnd   NoteKind = "rebalance_end"   // it ended; Failed if it did not succeed
	NoteClientState    NoteKind = "client_state"    // Detail is the client's new state
	NoteJoinFailure    NoteKind = "join_failure"    // the member cannot join (Detail: the error); Failed if the error is fatal
	NoteFenced         NoteKind = "fenced"          // the client learned it was fenced
)

// Note is a fact for metrics and the trace.
type Note struct {
	Kind     NoteKind
	Process  string
	MemberID string
	Detail   string
	Failed   bool
	// Value is a number attached to the note (generation, epoch).
	Value int64
}

// Effects collects a model's outputs for one input.
type Effects struct {
	Sends     []Send
	Timers    []TimerRequest
	Callbacks []Callback
	// WantPoll asks for the application thread's next poll().
	WantPoll bool
	Notes    []Note
	// CommitOffsets sends, now and before the effects' requests, an
	// OffsetCommit of everything the application has consumed, when
	// enable.auto.commit is on: the classic client's auto-commit in
	// onJoinPrepare when no revocation follows (a revocation with Commit
	// makes that commit). A CommitAwaiter client is told when it is
	// answered.
	CommitOffsets bool
}

// Send appends a message to to. The coordinator answers a request by
// sending to the endpoint it came from.
func (e *Effects) Send(to Endpoint, msg Message) {
	e.Sends = append(e.Sends, Send{To: to, Msg: msg})
}

// Request appends a client's request to the coordinator, sent from thread;
// its response comes back to the same thread.
func (e *Effects) Request(thread Thread, msg Message) {
	e.Sends = append(e.Sends, Send{To: Coordinator, Msg: msg, Thread: thread})
}

// SetTimer appends a coordinator's timer request.
func (e *Effects) SetTimer(id TimerID, at time.Duration) {
	e.Timers = append(e.Timers, TimerRequest{ID: id, At: at})
}

// SetClientTimer appends a client's timer request: the timer fires on
// thread, and waits while that thread is blocked.
func (e *Effects) SetClientTimer(id TimerID, at time.Duration, thread Thread) {
	e.Timers = append(e.Timers, TimerRequest{ID: id, At: at, Thread: thread})
}

// CancelTimer appends a cancellation.
func (e *Effects) CancelTimer(id TimerID) {
	e.Timers = append(e.Timers, TimerRequest{ID: id, Cancel: true})
}

// Note appends a note.
func (e *Effects) Note(n Note) { e.Notes = append(e.Notes, n) }

// Reset empties e for reuse, keeping its capacity.
func (e *Effects) Reset() {
	e.Sends = e.Sends[:0]
	e.Timers = e.Timers[:0]
	e.Callbacks = e.Callbacks[:0]
	e.WantPoll = false
	e.Notes = e.Notes[:0]
	e.CommitOffsets = false
}

// ClientEnv is what a client may know about its world at an input: the
// time, when its application thread last called poll(), and the cluster
// metadata (which a client should only look at on a metadata refresh).
type ClientEnv struct {
	Now      time.Duration
	LastPoll time.Duration
	Metadata []kafka.Topic
	// Release is the Kafka release the client runs ("4.0" … "4.3"; "" is
	// DefaultKafkaVersion), for the behaviours that differ.
	Release string
	// PollEvent, at a Poll, says this poll() hands the background thread
	// the application's poll event, in which the consumer protocol's
	// membership manager may start a reconciliation that commits
	// (ApplicationEventProcessor.process(AsyncPollEvent) calls
	// maybeReconcile(true)). Before 4.2 every poll() sends one
	// (PollEvent); from 4.2 one that finds the previous event done and
	// records still buffered sends none (see world.pollEvent). It is
	// true at every Poll of a classic client, which has no such event.
	PollEvent bool
}

// Client is a member-side protocol model: one consumer incarnation.
type Client interface {
	// Start subscribes; the process has just started.
	Start(env ClientEnv, out *Effects)
	// Poll is one poll() of the application thread.
	Poll(env ClientEnv, out *Effects)
	// Receive handles a message from the coordinator.
	Receive(env ClientEnv, msg Message, out *Effects)
	// Timer handles a timer the client set.
	Timer(env ClientEnv, id TimerID, out *Effects)
	// CallbackDone reports that the application thread finished a callback.
	CallbackDone(env ClientEnv, cb Callback, out *Effects)
	// Close is a graceful close(): revoke (or not, for static members) and
	// leave the group. The simulator stops the process once Closed reports true.
	Close(env ClientEnv, out *Effects)
	// Closed reports whether a Close has finished.
	Closed() bool
	// Subscribe changes the subscription.
	Subscribe(env ClientEnv, topics []string, out *Effects)
	// Settled reports whether the client has nothing pending: it is a
	// member, owns what it was given and needs no further rebalance.
	Settled() bool
	// Rebalancing reports whether the client is inside a rebalance (for
	// member_idle_seconds and the swim-lane chart).
	Rebalancing() bool
	// Fenced reports whether the client knows it has been fenced or has left
	// and not yet rejoined.
	Fenced() bool
	// State names the client's state for the trace.
	State() string
}

// CommitGate is implemented by a client whose offset commits succeed only
// in some states: the classic client commits only in a stable generation
// (ConsumerCoordinator.sendOffsetCommitRequest fails a commit while a
// rebalance is in progress), so its periodic auto-commit does nothing
// then. A client without it always commits.
type CommitGate interface {
	CanCommit() bool
}

// CoordinatorEnv is what the coordinator knows at an input.
type CoordinatorEnv struct {
	Now      time.Duration
	Metadata []kafka.Topic
	// Release is the Kafka release the broker runs ("4.0" … "4.3"; ""
	// is DefaultKafkaVersion), for the behaviours that differ.
	Release string
	// MemberIDs mints member ids. A coordinator driven by hand (a
	// transcript test) may leave it nil, and then numbers its ids in
	// minting order so that a transcript reads "c1-1"; a run always sets it.
	MemberIDs *MemberIDs
}

// GroupCoordinator is the broker-side model of one group.
type GroupCoordinator interface {
	// Receive handles a request from a consumer.
	Receive(env CoordinatorEnv, from Endpoint, msg Message, out *Effects)
	// Timer handles a timer the coordinator set.
	Timer(env CoordinatorEnv, id TimerID, out *Effects)
	// MetadataChanged tells the coordinator that topic metadata changed
	// (partitions added); env.Metadata is the new metadata.
	MetadataChanged(env CoordinatorEnv, out *Effects)
	// Stable reports whether the group has no rebalance in progress.
	Stable() bool
	// State names the group's state for the trace.
	State() string
}

// Models builds the protocol models of a run. The simulator never imports
// a protocol package; the caller (package protocols) supplies this.
type Models interface {
	// NewCoordinator builds the coordinator for a group with config cfg.
	NewCoordinator(cfg GroupConfig) GroupCoordinator
	// NewClient builds a client for one incarnation of a consumer process.
	NewClient(self Endpoint, cfg ConsumerConfig) (Client, error)
	// Names lists the protocols and assignors the models implement; a
	// scenario loader accepts exactly these.
	Names() Names
}
