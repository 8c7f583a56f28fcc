package sim

import (
	"fmt"
	"math"
	"time"
)

// WorkloadKind names the Kubernetes controller that rolls a workload out.
type WorkloadKind string

const (
	// Deployment replaces pods with new ones under new names, surging above
	// the replica count and dipping below it as max_surge and
	// max_unavailable allow.
	Deployment WorkloadKind = "deployment"
	// StatefulSet deletes pod i and recreates it under the same name, from
	// the highest ordinal down, max_unavailable at a time (one by default).
	StatefulSet WorkloadKind = "statefulset"
)

// WorkloadKinds lists the kinds a file may name.
func WorkloadKinds() []string { return []string{string(Deployment), string(StatefulSet)} }

// IntOrPercent is Kubernetes' intstr for max_surge and max_unavailable: a
// count of pods, or a percentage of the replica count.
type IntOrPercent struct {
	Value   int
	Percent bool
}

// String writes it as a file does: 1 or 25%.
func (v IntOrPercent) String() string {
	if v.Percent {
		return fmt.Sprintf("%d%%", v.Value)
	}
	return fmt.Sprint(v.Value)
}

// Scaled resolves v against replicas, rounding a percentage up or down
// (GetScaledValueFromIntOrPercent).
func (v IntOrPercent) Scaled(replicas int, roundUp bool) int {
	if !v.Percent {
		return v.Value
	}
	f := float64(v.Value) * float64(replicas) / 100
	if roundUp {
		return int(math.Ceil(f))
	}
	return int(math.Floor(f))
}

// resolveFenceposts turns max_surge and max_unavailable into pod counts as
// Kubernetes' deployment util does: surge rounds up, unavailable rounds
// down, and if both come to zero one pod may be unavailable, or the
// rollout could never progress. (Both written as 0 is rejected by the
// scenario loader, as the API server rejects it.)
func resolveFenceposts(surge, unavailable IntOrPercent, replicas int) (int, int) {
	s := surge.Scaled(replicas, true)
	u := unavailable.Scaled(replicas, false)
	if s == 0 && u == 0 {
		u = 1
	}
	return s, u
}

// Rollout is a Kubernetes rollout of a workload's members (event kind
// rollout): the pod template changed, and every pod is replaced.
type Rollout struct {
	Kind WorkloadKind
	// MaxSurge and MaxUnavailable bound the rollout (a Deployment's
	// 25%/25% by default; a StatefulSet takes only MaxUnavailable, 1).
	MaxSurge, MaxUnavailable IntOrPercent
	// MinReady is minReadySeconds: how long a new pod must be up before
	// it counts as available.
	MinReady time.Duration
	Pod      PodTemplate
}

// rollout is one rollout in progress.
type rollout struct {
	w    *world
	spec *Rollout
	set  ConsumerSettings
	// old are the pods being replaced, in member order; fresh the new ones.
	old, fresh  []*pod
	replicas    int
	surge, down int
	label       string
	done        bool
}

// startRollout begins a rollout of ev.Members at ev.At.
func (w *world) startRollout(ev Event) {
	r := &rollout{w: w, spec: ev.Rollout, set: ev.Set, label: fmt.Sprintf("rollout %s", ev.Rollout.Kind)}
	w.k.At(ev.At, func() {
		for _, name := range ev.Members {
			if i, ok := w.byName[name]; ok {
				r.old = append(r.old, w.adopt(w.procs[i], &r.spec.Pod, r.reconcile))
			}
		}
		r.replicas = len(r.old)
		r.surge, r.down = resolveFenceposts(r.spec.MaxSurge, r.spec.MaxUnavailable, r.replicas)
		if r.spec.Kind == StatefulSet {
			r.surge = 0
		}
		if w.traceOn() {
			w.emit(traceRecord{Event: "rollout_start", Detail: fmt.Sprintf("%s of %d pods, max_surge %d, max_unavailable %d", r.spec.Kind, r.replicas, r.surge, r.down)})
		}
		r.reconcile()
	})
}

// reconcile runs the controller once: after the start and after every
// change of a pod it manages.
func (r *rollout) reconcile() {
	if r.done {
		return
	}
	if r.spec.Kind == StatefulSet {
		r.reconcileStatefulSet()
	} else {
		r.reconcileDeployment()
	}
}

// reconcileDeployment is the deployment controller's rolling update
// (rolling.go, rolloutRolling): scale the new ReplicaSet up while the pods
// stay within replicas + max_surge (reconcileNewReplicaSet), then scale
// the old one down while replicas - max_unavailable pods stay available,
// unavailable old pods first (reconcileOldReplicaSets). Terminating pods
// count towards neither.
func (r *rollout) reconcileDeployment() {
	w := r.w
	oldActive, freshAvail, oldAvail := 0, 0, 0
	for _, pd := range r.old {
		if !pd.terminating {
			oldActive++
			if pd.available {
				oldAvail++
			}
		}
	}
	for _, pd := range r.fresh {
		if pd.available {
			freshAvail++
		}
	}
	if n := min(r.replicas+r.surge-(oldActive+len(r.fresh)), r.replicas-len(r.fresh)); n > 0 {
		for i := 0; i < n; i++ {
			base := r.old[len(r.fresh)].p
			pd, err := w.newPod(base, w.podName(r.baseOf(base)), &r.spec.Pod, r.set, r.spec.MinReady, r.reconcile)
			if err != nil {
				w.findings = append(w.findings, Finding{Kind: "join_failure", At: sec(w.k.Now()), Members: []string{base.name}, Detail: err.Error()})
				r.done = true
				return
			}
			r.fresh = append(r.fresh, pd)
		}
	}
	minAvailable := r.replicas - r.down
	freshUnavailable := len(r.fresh) - freshAvail
	maxScaledDown := oldActive + len(r.fresh) - minAvailable - freshUnavailable
	// cleanupUnhealthyReplicas: old pods that are not available go first.
	for _, pd := range r.old {
		if maxScaledDown <= 0 {
			break
		}
		if !pd.terminating && !pd.available {
			r.deleteLater(pd)
			maxScaledDown--
			oldActive--
		}
	}
	// scaleDownOldReplicaSetsForRollingUpdate: as far as availability allows.
	scaleDown := min(oldAvail+freshAvail-minAvailable, maxScaledDown)
	for _, pd := range r.old {
		if scaleDown <= 0 {
			break
		}
		if !pd.terminating {
			r.deleteLater(pd)
			scaleDown--
		}
	}
	r.finishIf(freshAvail == r.replicas)
}

// baseOf names the scenario member a pod descends from.
func (r *rollout) baseOf(p *process) string {
	if p.pod != nil {
		return p.pod.base
	}
	return p.name
}

// reconcileStatefulSet is the StatefulSet controller's rolling update
// (updateStatefulSet with OrderedReady): pods are replaced from the
// highest ordinal down, and the next is deleted only while fewer than
// max_unavailable pods are unavailable. A deleted pod comes back under
// its own name once its process is gone.
func (r *rollout) reconcileStatefulSet() {
	unavailable, updated := 0, 0
	for _, pd := range r.old {
		if pd.gone {
			r.recreate(pd)
		}
		if !pd.available {
			unavailable++
		}
		if pd.updated && pd.available {
			updated++
		}
	}
	for i := len(r.old) - 1; i >= 0 && unavailable < r.down; i-- {
		if pd := r.old[i]; !pd.updated && !pd.terminating {
			r.deleteLater(pd)
			unavailable++
		}
	}
	r.finishIf(updated == len(r.old))
}

// recreate brings a StatefulSet pod back under its own name, with the
// new template.
func (r *rollout) recreate(pd *pod) {
	pd.terminating, pd.gone, pd.minReady, pd.updated = false, false, r.spec.MinReady, true
	p := pd.p
	if r.set != (ConsumerSettings{}) {
		p.patches = append(p.patches, r.set)
	}
	p.patches = append(p.patches, instanceIDPatch(r.spec.Pod.InstanceID, p.name, p.cfg))
	r.w.createPod(pd, 0)
}

// deleteLater deletes pd after the controller's reaction time; it counts
// as terminating at once, as a pod with a deletion timestamp does.
func (r *rollout) deleteLater(pd *pod) {
	pd.terminating, pd.available = true, false
	w := r.w
	w.k.At(w.k.Now()+w.jitter(pd.tmpl), func() {
		pd.terminating = false
		now := w.k.Now()
		w.disturb(disturbance{kind: string(EventRollout), members: []string{pd.p.name}, start: now, end: now, label: r.label + " deletes " + pd.p.name})
		w.deletePod(pd)
	})
}

func (r *rollout) finishIf(done bool) {
	if !done || r.done {
		return
	}
	r.done = true
	if r.w.traceOn() {
		r.w.emit(traceRecord{Event: "rollout_complete", Detail: r.label})
	}
}
