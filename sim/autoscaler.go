package sim

import (
	"fmt"
	"math"
	"time"
)

// Autoscaler is a closed loop in the style of KEDA's Kafka scaler driving
// a HorizontalPodAutoscaler: every PollingInterval it reads the group's
// total lag, the HPA turns it into a replica count, and pods are started
// or deleted through the pod model (start time, grace period).
type Autoscaler struct {
	// Members are the workload's pods at the start; new pods copy the
	// first one's settings.
	Members []string
	// Start is when the ScaledObject is applied; the first poll is one
	// interval later.
	Start time.Duration
	// PollingInterval is KEDA's pollingInterval: the loop's period.
	PollingInterval time.Duration
	// LagThreshold is KEDA's lagThreshold: the lag one replica should carry
	// (the HPA's AverageValue target).
	LagThreshold float64
	// MinReplicas and MaxReplicas bound the replica count.
	MinReplicas, MaxReplicas int
	// AllowIdleConsumers is KEDA's allowIdleConsumers: without it the lag
	// is capped so that the scaler never asks for more replicas than the
	// topics have partitions.
	AllowIdleConsumers bool
	// Tolerance is the HPA's tolerance: no change while the usage ratio is
	// within it of 1.
	Tolerance float64
	// ScaleUp and ScaleDown are the HPA's behavior.
	ScaleUp, ScaleDown ScalingRules
	Pod                PodTemplate
}

// ScalingRules is one direction of an HPA's behavior.
type ScalingRules struct {
	// StabilizationWindow: scale-up takes the lowest, scale-down the highest
	// recommendation of the window.
	StabilizationWindow time.Duration
	// SelectPolicy is max, min or disabled.
	SelectPolicy string
	Policies     []ScalingPolicy
}

// ScalingPolicy limits the change per period to Value pods or Value percent.
type ScalingPolicy struct {
	Percent bool
	Value   int
	Period  time.Duration
}

// HPA select policies.
const (
	SelectMax      = "max"
	SelectMin      = "min"
	SelectDisabled = "disabled"
)

// SelectPolicies lists them.
func SelectPolicies() []string { return []string{SelectMax, SelectMin, SelectDisabled} }

// DefaultScaleUp and DefaultScaleDown are the HPA's default behavior
// (autoscaling/v2): up by 4 pods or 100% per 15 s, whichever is more, at
// once; down by 100% per 15 s after a 300 s stabilization window.
func DefaultScaleUp() ScalingRules {
	return ScalingRules{SelectPolicy: SelectMax, Policies: []ScalingPolicy{
		{Value: 4, Period: 15 * time.Second}, {Percent: true, Value: 100, Period: 15 * time.Second}}}
}

// DefaultScaleDown is the HPA's default scale-down behavior.
func DefaultScaleDown() ScalingRules {
	return ScalingRules{StabilizationWindow: 300 * time.Second, SelectPolicy: SelectMax,
		Policies: []ScalingPolicy{{Percent: true, Value: 100, Period: 15 * time.Second}}}
}

// kedaLag is what KEDA's Kafka scaler reports: the total lag, capped at
// partitions × lagThreshold unless idle consumers are allowed
// (kafka_scaler.go, getTotalLag).
func kedaLag(total float64, partitions int, threshold float64, allowIdle bool) float64 {
	total = math.Floor(total)
	if !allowIdle && threshold > 0 && total/threshold > float64(partitions) {
		return float64(partitions) * threshold
	}
	return total
}

// hpaDesired is the HPA's replica count for an AverageValue metric
// (replica_calculator.go, GetExternalPerPodMetricReplicas): the usage
// ratio is metric / (target × current); within the tolerance of 1 the
// count stays, otherwise it is ceil(metric / target), the same as
// ceil(current × ratio).
func hpaDesired(current int, metric, target, tolerance float64) int {
	if current <= 0 || target <= 0 {
		return current
	}
	ratio := metric / (target * float64(current))
	if math.Abs(1-ratio) <= tolerance {
		return current
	}
	return int(math.Ceil(metric / target))
}

// scaleEvent is a past change of the replica count, for the policies.
type scaleEvent struct {
	at     time.Duration
	change int
}

// recommendation is a past desired count, for the stabilization windows.
type recommendation struct {
	at       time.Duration
	replicas int
}

// hpa is the HorizontalPodAutoscaler's state between two decisions.
type hpa struct {
	spec            *Autoscaler
	recommendations []recommendation
	ups, downs      []scaleEvent
}

// decide is one HPA reconcile (horizontal.go, reconcileAutoscaler): a
// count outside [min, max] is brought back in; otherwise the desired
// count is stabilized (stabilizeRecommendationWithBehaviors) and rate
// limited (convertDesiredReplicasWithBehaviorRate).
func (h *hpa) decide(now time.Duration, current, desired int) int {
	s := h.spec
	switch {
	case current > s.MaxReplicas:
		return s.MaxReplicas
	case current < s.MinReplicas:
		return s.MinReplicas
	}
	up, down := desired, desired
	keep := h.recommendations[:0]
	longest := max(s.ScaleUp.StabilizationWindow, s.ScaleDown.StabilizationWindow)
	for _, r := range h.recommendations {
		if r.at > now-s.ScaleUp.StabilizationWindow {
			up = min(up, r.replicas)
		}
		if r.at > now-s.ScaleDown.StabilizationWindow {
			down = max(down, r.replicas)
		}
		if r.at > now-longest {
			keep = append(keep, r)
		}
	}
	h.recommendations = append(keep, recommendation{now, desired})
	stabilized := min(max(current, up), down)
	switch {
	case stabilized > current:
		limit := max(scaleUpLimit(current, h.ups, h.downs, s.ScaleUp, now), current)
		return min(stabilized, s.MaxReplicas, limit)
	case stabilized < current:
		limit := min(scaleDownLimit(current, h.ups, h.downs, s.ScaleDown, now), current)
		return max(stabilized, s.MinReplicas, limit)
	}
	return stabilized
}

// record keeps a change of the replica count for the policies (storeScaleEvent).
func (h *hpa) record(now time.Duration, from, to int) {
	if to > from {
		h.ups = append(h.ups, scaleEvent{now, to - from})
	} else if to < from {
		h.downs = append(h.downs, scaleEvent{now, from - to})
	}
}

// changedIn sums the changes within the last period (getReplicasChangePerPeriod).
func changedIn(events []scaleEvent, period, now time.Duration) int {
	n := 0
	for _, e := range events {
		if e.at > now-period {
			n += e.change
		}
	}
	return n
}

// scaleUpLimit is calculateScaleUpLimitWithScalingRules: each policy
// allows its change over the replicas at the start of its period; max
// takes the largest allowance, min the smallest.
func scaleUpLimit(current int, ups, downs []scaleEvent, rules ScalingRules, now time.Duration) int {
	return policyLimit(current, ups, downs, rules, now, +1)
}

// scaleDownLimit is calculateScaleDownLimitWithBehaviors: the mirror
// image, where max means the lowest floor (the largest change).
func scaleDownLimit(current int, ups, downs []scaleEvent, rules ScalingRules, now time.Duration) int {
	return policyLimit(current, ups, downs, rules, now, -1)
}

// policyLimit is the limit the policies of one direction (dir +1 up, -1
// down) set on the replica count.
func policyLimit(current int, ups, downs []scaleEvent, rules ScalingRules, now time.Duration, dir int) int {
	if rules.SelectPolicy == SelectDisabled || len(rules.Policies) == 0 {
		return current
	}
	// The largest change: the highest ceiling going up, the lowest floor
	// going down; min asks for the smallest.
	largest := rules.SelectPolicy != SelectMin
	result, found := 0, false
	for _, p := range rules.Policies {
		start := current - changedIn(ups, p.Period, now) + changedIn(downs, p.Period, now)
		proposed := start + dir*p.Value
		switch {
		case p.Percent && dir > 0:
			// Rounded up, or a small group could never grow.
			proposed = int(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
		case p.Percent:
			proposed = int(float64(start) * (1 - float64(p.Value)/100))
		}
		if !found || (proposed*dir > result*dir) == largest {
			result, found = proposed, true
		}
	}
	return result
}

// ScaleDecision is one poll of the autoscaler, for result.json and charts.
type ScaleDecision struct {
	At float64 `json:"at_seconds"`
	// Lag is the lag the scaler saw (after KEDA's cap).
	Lag float64 `json:"lag_records"`
	// Desired is the HPA's metric-based count, Replicas the count it set.
	Desired  int `json:"desired"`
	Replicas int `json:"replicas"`
}

// AutoscalerResult is the autoscaler's history in a run.
type AutoscalerResult struct {
	Decisions []ScaleDecision `json:"decisions"`
}

// autoscaler is the loop in progress.
type autoscaler struct {
	w    *world
	spec *Autoscaler
	hpa  hpa
	// pods are the workload's live pods, oldest first.
	pods       []*pod
	template   *process
	partitions int
	history    []ScaleDecision
	// scaleEvents and directions feed the metrics.
	scaleEvents, oscillation, lastDir int
}

func (w *world) startAutoscaler(spec *Autoscaler) {
	a := &autoscaler{w: w, spec: spec, hpa: hpa{spec: spec}}
	w.scaler = a
	for _, name := range spec.Members {
		if i, ok := w.byName[name]; ok {
			p := w.procs[i]
			if a.template == nil {
				a.template = p
			}
			pd := w.adopt(p, &spec.Pod, func() {})
			a.pods = append(a.pods, pd)
		}
	}
	var tick func()
	tick = func() {
		a.poll()
		if next := w.k.Now() + spec.PollingInterval; next <= w.sc.Duration {
			w.k.At(next, tick)
		}
	}
	w.k.At(spec.Start+spec.PollingInterval, tick)
}

// poll is one polling interval: read the lag, decide, scale.
func (a *autoscaler) poll() {
	w := a.w
	now := w.k.Now()
	partitions := 0
	for _, t := range w.metadata {
		partitions += int(t.Partitions)
	}
	lag := kedaLag(w.ledger.totalLag(now), partitions, a.spec.LagThreshold, a.spec.AllowIdleConsumers)
	current := len(a.pods)
	desired := hpaDesired(current, lag, a.spec.LagThreshold, a.spec.Tolerance)
	next := a.hpa.decide(now, current, desired)
	a.history = append(a.history, ScaleDecision{At: sec(now), Lag: lag, Desired: desired, Replicas: next})
	if next == current {
		return
	}
	a.hpa.record(now, current, next)
	a.scaleEvents++
	dir := 1
	if next < current {
		dir = -1
	}
	if a.lastDir != 0 && dir != a.lastDir {
		a.oscillation++
	}
	a.lastDir = dir
	label := fmt.Sprintf("scale %d → %d replicas (lag %.0f)", current, next, lag)
	w.disturb(disturbance{kind: "scale", start: now, end: now, label: label})
	if w.traceOn() {
		w.emit(traceRecord{Event: "scale", Detail: label})
	}
	for len(a.pods) < next {
		pd, err := w.newPod(a.template, w.podName(a.template.name), &a.spec.Pod, ConsumerSettings{}, 0, func() {})
		if err != nil {
			w.findings = append(w.findings, Finding{Kind: "join_failure", At: sec(now), Members: []string{a.template.name}, Detail: err.Error()})
			return
		}
		a.pods = append(a.pods, pd)
	}
	// The ReplicaSet deletes the newest pods first (its ranking prefers
	// pods ready for the shortest time).
	for len(a.pods) > next {
		pd := a.pods[len(a.pods)-1]
		a.pods = a.pods[:len(a.pods)-1]
		w.deletePod(pd)
	}
}
