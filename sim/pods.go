package sim

import (
	"fmt"
	"time"
)

// Pods: consumer processes run as Kubernetes pods. A rollout or an
// autoscaler manages its members as pods, which adds what Kubernetes does
// around a process: a start time from the container's creation to the
// consumer's first poll(), SIGTERM then SIGKILL when the
// terminationGracePeriodSeconds run out, and the kubelet restarting a
// container whose consumer hit a fatal error (CrashLoopBackOff).

// PodTemplate is how a workload runs its consumers as pods.
type PodTemplate struct {
	// StartTime is the time from a pod's creation to its consumer's first
	// poll(): scheduling, image, JVM start.
	StartTime Distribution
	// Jitter delays each pod action (a creation, a deletion) by a uniform
	// draw from [0, Jitter]: the controllers' reaction times.
	Jitter time.Duration
	// TerminationGracePeriod is terminationGracePeriodSeconds: a pod still
	// shutting down when it expires is killed (SIGKILL): no more
	// callbacks, no LeaveGroup, as in a crash.
	TerminationGracePeriod time.Duration
	// InstanceID is how a new pod's group.instance.id is derived;
	// InstanceIDInherit keeps the member's own settings.
	InstanceID InstanceIDSource
}

// DefaultTerminationGracePeriod is Kubernetes' terminationGracePeriodSeconds default.
const DefaultTerminationGracePeriod = 30 * time.Second

// InstanceIDSource names how a pod's group.instance.id is derived.
type InstanceIDSource string

const (
	// InstanceIDInherit keeps what the member's settings say (static:
	// true is the pod's own name).
	InstanceIDInherit InstanceIDSource = ""
	// InstanceIDPodName uses the pod's name: new with every Deployment
	// pod, the same for a StatefulSet's pod i.
	InstanceIDPodName InstanceIDSource = "pod_name"
	// InstanceIDStable keeps the instance id of the member the pod
	// replaces (or its name, if it was dynamic): an id fixed per replica.
	InstanceIDStable InstanceIDSource = "stable"
	// InstanceIDNone makes the pod a dynamic member.
	InstanceIDNone InstanceIDSource = "none"
)

// InstanceIDSources lists the instance_id values a file may name.
func InstanceIDSources() []string {
	return []string{string(InstanceIDPodName), string(InstanceIDStable), string(InstanceIDNone)}
}

// crashLoopBackOff is the kubelet's delay before it restarts a container
// for the n-th time (n from 1): 10 s, doubling, at most 5 minutes.
func crashLoopBackOff(n int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < n && d < 5*time.Minute; i++ {
		d *= 2
	}
	return min(d, 5*time.Minute)
}

// pod is one pod of a workload: a process, and what Kubernetes knows of it.
type pod struct {
	p    *process
	tmpl *PodTemplate
	// base is the scenario member the pod descends from (new pods copy its
	// settings).
	base string
	// terminating is set once the pod is deleted; gone once its process
	// has stopped for good.
	terminating, gone bool
	// available is set minReady after the consumer came up, while it stays up.
	available bool
	minReady  time.Duration
	restarts  int
	pending   eventID // a start (after the start time or a back-off) not yet due
	// onChange tells the controller that the pod became available or gone.
	onChange func()
	// life counts the pod's (re)creations, so that a stale availability
	// timer of an earlier life is ignored.
	life int
	// updated marks a StatefulSet pod recreated by the rollout.
	updated bool
}

// addProcess makes the process of a member; the world's processes are the
// scenario's members, then the pods controllers create, in creation order.
func (w *world) addProcess(m MemberSpec) (*process, error) {
	if _, dup := w.byName[m.ID]; dup {
		return nil, fmt.Errorf("scenario %s: two processes named %s", w.sc.Name, m.ID)
	}
	cfg, err := ResolveConfig(w.sc, w.opts.Protocol, m, nil)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", w.sc.Name, err)
	}
	i := len(w.procs)
	p := &process{w: w, idx: i, name: m.ID, spec: m, cfg: cfg,
		latency: newSampler(w.sc.Network.Latency, nil),
		pollRng: w.streams.Stream("poll/" + m.ID), ready: true, lane: "down", pollEventAt: -1}
	// A fixed latency draws nothing: the stream of one that varies is
	// derived here, that of the records' processing times on first use
	// (startProcess). A stream's draws depend on its name alone, not on
	// when it is derived, and most members need neither.
	if p.fixedLatency, p.latencyFixed = p.latency.Fixed(); !p.latencyFixed {
		p.latency = newSampler(w.sc.Network.Latency, w.streams.Stream("net/"+m.ID))
	}
	w.procs = append(w.procs, p)
	w.byName[m.ID] = i
	w.ledger.addProcess(m.ID, cfg.Rate())
	return p, nil
}

// podName names a new pod descended from member base: base-v1, base-v2,
// ... (v for the version of the pod template)
// skipping names in use.
func (w *world) podName(base string) string {
	for {
		w.podSeq[base]++
		name := fmt.Sprintf("%s-v%d", base, w.podSeq[base])
		if _, used := w.byName[name]; !used {
			return name
		}
	}
}

// adopt makes a running member a pod of a workload.
func (w *world) adopt(p *process, tmpl *PodTemplate, onChange func()) *pod {
	pd := &pod{p: p, tmpl: tmpl, base: p.name, onChange: onChange, available: p.alive}
	if p.pod != nil {
		pd.base = p.pod.base
	}
	p.pod = pd
	return pd
}

// newPod creates a pod descended from member base, named name, with the
// instance id its template says, and starts it after the start time.
func (w *world) newPod(base *process, name string, tmpl *PodTemplate, set ConsumerSettings, minReady time.Duration, onChange func()) (*pod, error) {
	spec := base.spec
	spec.ID, spec.Start, spec.Line = name, -1, 0
	p, err := w.addProcess(spec)
	if err != nil {
		return nil, err
	}
	p.patches = append(append([]ConsumerSettings(nil), base.patches...), set)
	pd := &pod{p: p, tmpl: tmpl, base: name, minReady: minReady, onChange: onChange}
	if base.pod != nil {
		pd.base = base.pod.base
	}
	p.patches = append(p.patches, instanceIDPatch(tmpl.InstanceID, name, base.cfg))
	p.pod = pd
	w.createPod(pd, 0)
	return pd, nil
}

// instanceIDPatch derives a pod's group.instance.id.
func instanceIDPatch(src InstanceIDSource, podName string, replaced ConsumerConfig) ConsumerSettings {
	var id string
	switch src {
	case InstanceIDInherit:
		return ConsumerSettings{}
	case InstanceIDPodName:
		id = podName
	case InstanceIDStable:
		id = replaced.GroupInstanceID
		if id == "" {
			id = replaced.ClientID
		}
	}
	return ConsumerSettings{GroupInstanceID: &id}
}

// jitter draws a controller's reaction delay.
func (w *world) jitter(tmpl *PodTemplate) time.Duration {
	if tmpl.Jitter <= 0 {
		return 0
	}
	return time.Duration(w.podRng.Int64N(int64(tmpl.Jitter) + 1))
}

// createPod starts pd's consumer after the start time (and delay, a
// back-off), then marks it available minReady after it came up.
func (w *world) createPod(pd *pod, delay time.Duration) {
	p := pd.p
	start := w.k.Now() + delay + w.jitter(pd.tmpl) + w.podStart(pd.tmpl).Sample()
	pd.life++
	life := pd.life
	if w.traceOn() {
		w.emit(traceRecord{Event: "pod_created", Member: p.name, Detail: fmt.Sprintf("consumer up at %s", start)})
	}
	pd.pending = w.k.At(start, func() {
		pd.pending = 0
		if pd.terminating || pd.life != life {
			return
		}
		w.startProcess(p)
		inc := p.incarnation
		w.k.At(w.k.Now()+pd.minReady, func() {
			if pd.life != life || p.incarnation != inc || !p.alive || pd.terminating || pd.available {
				return
			}
			pd.available = true
			if w.traceOn() {
				w.emit(traceRecord{Event: "pod_available", Member: p.name})
			}
			pd.onChange()
		})
	})
}

// podStart returns the start-time sampler of a template, one per template.
func (w *world) podStart(tmpl *PodTemplate) *sampler {
	s, ok := w.podStarts[tmpl]
	if !ok {
		s = newSampler(tmpl.StartTime, w.streams.Stream(fmt.Sprintf("pod/start/%d", len(w.podStarts))))
		w.podStarts[tmpl] = s
	}
	return s
}

// deletePod deletes pd: SIGTERM, which the application answers with
// close(), then SIGKILL when the grace period runs out.
func (w *world) deletePod(pd *pod) {
	if pd.terminating {
		return
	}
	pd.terminating, pd.available = true, false
	p := pd.p
	if w.traceOn() {
		w.emit(traceRecord{Event: "pod_terminating", Member: p.name, Detail: fmt.Sprintf("grace period %s", pd.tmpl.TerminationGracePeriod)})
	}
	w.k.Cancel(pd.pending)
	pd.pending = 0
	if !p.alive {
		w.podGone(pd)
		return
	}
	w.closeWithin(p, pd.tmpl.TerminationGracePeriod, "termination_grace_period expired")
}

// podGone ends a deleted pod whose process has stopped.
func (w *world) podGone(pd *pod) {
	if pd.gone {
		return
	}
	pd.gone = true
	if w.traceOn() {
		w.emit(traceRecord{Event: "pod_deleted", Member: pd.p.name})
	}
	pd.onChange()
}

// podStopped is told of every stop of a pod's process: a deleted pod is
// gone; any other lost its container and the kubelet restarts it.
func (w *world) podStopped(pd *pod) {
	if pd.terminating {
		w.podGone(pd)
		return
	}
	wasAvailable := pd.available
	pd.available = false
	pd.restarts++
	w.createPod(pd, crashLoopBackOff(pd.restarts))
	if wasAvailable {
		pd.onChange()
	}
}

// podFatal handles a fatal consumer error in a pod: the exception ends
// the application's poll loop and the container exits.
func (w *world) podFatal(p *process) {
	inc := p.incarnation
	w.k.At(w.k.Now(), func() {
		if p.incarnation != inc || !p.alive || p.pod == nil || p.pod.terminating {
			return
		}
		detail := fmt.Sprintf("fatal consumer error; the kubelet restarts the container in %s", crashLoopBackOff(p.pod.restarts+1))
		w.findings = append(w.findings, Finding{Kind: "container_exit", At: sec(w.k.Now()), Members: []string{p.name}, Detail: detail})
		if w.traceOn() {
			w.emit(traceRecord{Event: "container_exit", Member: p.name, Detail: detail})
		}
		w.stopProcess(p, false)
	})
}
