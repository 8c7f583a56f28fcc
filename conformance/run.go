package conformance

import (
	"fmt"
	"strings"

	classic "github.com/rebalsim/rebalsim/protocols/classic/assignor"
	nextgen "github.com/rebalsim/rebalsim/protocols/nextgen/assignor"
	"github.com/rebalsim/rebalsim/protocols/nextgen/reconcile"
)

// Status is a vector's verdict.
type Status int

const (
	// Pass: everything the vector asserts was checked and holds.
	Pass Status = iota
	// Fail: something the vector asserts does not hold.
	Fail
	// Skip: the vector asks for something the runner cannot check
	// faithfully; Detail says what.
	Skip
)

func (s Status) String() string {
	switch s {
	case Pass:
		return "PASS"
	case Fail:
		return "FAIL"
	case Skip:
		return "SKIP"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Outcome is the verdict on one vector for one assignor.
type Outcome struct {
	Name string
	Kind string
	// Assignor is the assignor this outcome is for; "" for reconciliation.
	Assignor string
	Status   Status
	// Detail says what was checked, and for a failure or a skip, why: a
	// failed comparison lists, member by member, the expected and the
	// actual partitions as sets and what is missing or extra.
	Detail string
}

func (o Outcome) String() string {
	name := o.Name
	if o.Assignor != "" {
		name += "[" + o.Assignor + "]"
	}
	return fmt.Sprintf("%s %s: %s", o.Status, name, o.Detail)
}

// Options chooses the implementations a file is run against. The zero
// value runs rebalsim's own.
type Options struct {
	// ClientAssignor resolves a client_assignor vector's assignor name; nil
	// means classic.ByName.
	ClientAssignor func(name string) (classic.Assignor, bool)
	// ServerAssignor resolves a server_assignor vector's assignor name
	// (uniform, server-range); nil means nextgen.ByName, with server-range
	// standing for nextgen.Range.
	ServerAssignor func(name string) (nextgen.Assignor, bool)
	// Reconcile runs one reconciliation step; nil means reconcile.Reconcile.
	Reconcile func(reconcile.Input) (reconcile.Member, error)
	// MaxFollowUps bounds the follow-up rebalances run after a cooperative
	// assignment withholds partitions; 0 means 10.
	MaxFollowUps int
}

func (o Options) clientAssignor(name string) (classic.Assignor, bool) {
	if o.ClientAssignor != nil {
		return o.ClientAssignor(name)
	}
	return classic.ByName(name)
}

func (o Options) serverAssignor(name string) (nextgen.Assignor, bool) {
	if o.ServerAssignor != nil {
		return o.ServerAssignor(name)
	}
	if name == "server-range" {
		return nextgen.Range(), true
	}
	return nextgen.ByName(name)
}

func (o Options) reconcile(in reconcile.Input) (reconcile.Member, error) {
	if o.Reconcile != nil {
		return o.Reconcile(in)
	}
	return reconcile.Reconcile(in)
}

func (o Options) maxFollowUps() int {
	if o.MaxFollowUps > 0 {
		return o.MaxFollowUps
	}
	return 10
}

// Run runs every vector of the file, in file order, and returns one
// outcome per vector and assignor.
func (f *File) Run(opts Options) []Outcome {
	var out []Outcome
	for i := range f.Vectors {
		out = append(out, f.Vectors[i].run(opts)...)
	}
	return out
}

func (v *Vector) run(opts Options) []Outcome {
	assignors := v.Assignors
	if v.Kind == "reconciliation" || len(assignors) == 0 {
		assignors = []string{""}
	}
	var out []Outcome
	for _, a := range assignors {
		o := Outcome{Name: v.Name, Kind: v.Kind, Assignor: a}
		switch {
		case len(v.unsupported) > 0:
			o.Status, o.Detail = Skip, strings.Join(v.unsupported, "; ")
		case v.Kind == "client_assignor":
			o.Status, o.Detail = v.runClient(a, opts).verdict()
		case v.Kind == "server_assignor":
			o.Status, o.Detail = v.runServer(a, opts).verdict()
		case v.Kind == "reconciliation":
			o.Status, o.Detail = v.runReconciliation(opts).verdict()
		default:
			o.Status, o.Detail = Skip, fmt.Sprintf("%s: unknown vector kind %q (known: client_assignor, server_assignor, reconciliation)", v.pos, v.Kind)
		}
		out = append(out, o)
	}
	return out
}

// report collects what a run checked, what failed and what could not be
// checked; verdict turns it into a status.
type report struct {
	checked  []string
	failures []string
	skips    []string
}

func (r *report) pass(what string) { r.checked = append(r.checked, what) }
func (r *report) fail(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *report) cannot(format string, args ...any) {
	r.skips = append(r.skips, fmt.Sprintf(format, args...))
}

// check records a comparison's result under a name: an empty diff passes.
func (r *report) check(what, diff string) {
	if diff == "" {
		r.pass(what)
	} else {
		r.fail("%s:\n%s", what, diff)
	}
}

// verdict fails if anything failed, skips if anything could not be
// checked (so that an unchecked assertion is never reported as a pass) and
// passes only when something was checked.
func (r *report) verdict() (Status, string) {
	switch {
	case len(r.failures) > 0:
		detail := strings.Join(r.failures, "\n")
		if len(r.skips) > 0 {
			detail += "\nnot checked: " + strings.Join(r.skips, "; ")
		}
		return Fail, detail
	case len(r.skips) > 0:
		detail := strings.Join(r.skips, "; ")
		if len(r.checked) > 0 {
			detail += " (checked and held: " + strings.Join(r.checked, ", ") + ")"
		}
		return Skip, detail
	case len(r.checked) == 0:
		return Skip, "the vector asserts nothing the runner knows how to check"
	}
	return Pass, "checked " + strings.Join(r.checked, ", ")
}
