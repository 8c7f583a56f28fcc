package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rebalsim/rebalsim/sim"
)

// Kubernetes workloads: the rollout event and the autoscaler section.

// Kubernetes' defaults.
const (
	// defaultPodStart is a JVM consumer's start to its first poll().
	defaultPodStart = 20 * time.Second
	// defaultPollingInterval is KEDA's pollingInterval.
	defaultPollingInterval = 30 * time.Second
	// defaultTolerance is the HPA's --horizontal-pod-autoscaler-tolerance.
	defaultTolerance = 0.1
)

// podKeys are the pod template keys a rollout and an autoscaler share.
func podKeys() []string {
	return []string{"start_time", "jitter", "termination_grace_period", "instance_id"}
}

func rolloutKeys() []string {
	return append([]string{"members", "member", "kind", "max_surge", "max_unavailable", "min_ready", "set"}, podKeys()...)
}

func autoscalerKeys() []string {
	return append([]string{"members", "start", "polling_interval", "lag_threshold", "min_replicas", "max_replicas",
		"allow_idle_consumers", "tolerance", "scale_up", "scale_down"}, podKeys()...)
}

const autoscalerExample = "{members: all, lag_threshold: 5000, min_replicas: 2, max_replicas: 12}"

// podTemplate decodes the pod keys of f (a rollout's or an autoscaler's).
func (d *decoder) podTemplate(f fields, path string) sim.PodTemplate {
	t := sim.PodTemplate{StartTime: sim.Distribution{Kind: sim.DistConstant, Value: defaultPodStart},
		TerminationGracePeriod: sim.DefaultTerminationGracePeriod}
	if e := f.get("start_time"); e != nil {
		if dist, ok := d.distribution(e.val, "start_time", path+".start_time", "{dist: uniform, min: 15s, max: 40s}, or a plain duration such as 20s"); ok {
			t.StartTime = dist
		}
	}
	d.durationKey(f, "jitter", path, &t.Jitter)
	d.durationKey(f, "termination_grace_period", path, &t.TerminationGracePeriod)
	if e := f.get("instance_id"); e != nil {
		d.mark(path+".instance_id", e.val)
		if v, ok := d.str(e.val, "instance_id"); ok {
			t.InstanceID = sim.InstanceIDSource(v)
		}
	}
	return t
}

// durationKey decodes an optional duration key of f into *dst.
func (d *decoder) durationKey(f fields, key, path string, dst *time.Duration) {
	if e := f.get(key); e != nil {
		d.mark(path+"."+key, e.val)
		if v, ok := d.duration(e.val, key); ok {
			*dst = v
		}
	}
}

// intKey decodes an optional whole-number key of f into *dst.
func (d *decoder) intKey(f fields, key, path string, dst *int) {
	if e := f.get(key); e != nil {
		d.mark(path+"."+key, e.val)
		if v, ok := d.integer(e.val, key, math.MinInt32, math.MaxInt32); ok {
			*dst = int(v)
		}
	}
}

// intOrPercent decodes a count (1) or a percentage ("25%"), as
// Kubernetes' max_surge and max_unavailable take.
func (d *decoder) intOrPercent(f fields, key, path string, dst *sim.IntOrPercent) {
	e := f.get(key)
	if e == nil {
		return
	}
	d.mark(path+"."+key, e.val)
	v, ok := d.scalar(e.val, key, "a count of pods or a percentage")
	if !ok {
		return
	}
	if pct, isPct := strings.CutSuffix(v.Value, "%"); isPct {
		n, err := strconv.Atoi(pct)
		if err != nil || n < 0 || n > 100 {
			d.failf(v, "%s must be a count of pods such as 1 or a percentage from 0%% to 100%% such as 25%%, found %s", key, describe(v))
			return
		}
		*dst = sim.IntOrPercent{Value: n, Percent: true}
		return
	}
	n, err := strconv.Atoi(v.Value)
	if v.ShortTag() != "!!int" || err != nil || n < 0 {
		d.failf(v, "%s must be a count of pods such as 1 or a percentage such as 25%%, found %s", key, describe(v))
		return
	}
	*dst = sim.IntOrPercent{Value: n}
}

// rollout decodes a rollout event's body (members are already read).
func (d *decoder) rollout(ev *sim.Event, f fields, path string) {
	r := &sim.Rollout{Kind: sim.Deployment,
		MaxSurge: sim.IntOrPercent{Value: 25, Percent: true}, MaxUnavailable: sim.IntOrPercent{Value: 25, Percent: true}}
	if e := f.get("kind"); e != nil {
		d.mark(path+".kind", e.val)
		if v, ok := d.str(e.val, "kind"); ok {
			r.Kind = sim.WorkloadKind(v)
		}
	}
	if r.Kind == sim.StatefulSet {
		// A StatefulSet has no surge; it replaces one pod at a time
		// unless maxUnavailable says more.
		r.MaxSurge, r.MaxUnavailable = sim.IntOrPercent{}, sim.IntOrPercent{Value: 1}
	}
	d.intOrPercent(f, "max_surge", path, &r.MaxSurge)
	d.intOrPercent(f, "max_unavailable", path, &r.MaxUnavailable)
	d.durationKey(f, "min_ready", path, &r.MinReady)
	r.Pod = d.podTemplate(f, path)
	if e := f.get("set"); e != nil {
		d.mark(path+".set", e.val)
		if sf, isMap := d.mapping(e.val, "set", settingKeys()); isMap {
			ev.Set = d.decodeSettings(sf, path+".set")
		}
	}
	ev.Rollout = r
}

// autoscaler decodes the autoscaler: section.
func (d *decoder) autoscaler(n *yaml.Node, s *sim.Scenario) {
	v := d.value(n)
	if v == nil {
		return
	}
	f, ok := d.mapping(v, "autoscaler", autoscalerKeys())
	if !ok {
		return
	}
	a := &sim.Autoscaler{PollingInterval: defaultPollingInterval, MinReplicas: 1, Tolerance: defaultTolerance,
		ScaleUp: sim.DefaultScaleUp(), ScaleDown: sim.DefaultScaleDown()}
	const path = "autoscaler"
	if e := f.get("members"); e != nil {
		a.Members, _ = d.targets(e.val, "members", path+".members", s)
	} else {
		for _, m := range s.Members {
			a.Members = append(a.Members, m.ID)
		}
	}
	d.durationKey(f, "start", path, &a.Start)
	d.durationKey(f, "polling_interval", path, &a.PollingInterval)
	if e := f.get("lag_threshold"); e != nil {
		d.mark(path+".lag_threshold", e.val)
		a.LagThreshold, _ = d.number(e.val, "lag_threshold")
	} else if f.lacks("lag_threshold") {
		d.failf(v, "autoscaler has no lag_threshold:, the lag one replica should carry; write %s", autoscalerExample)
	}
	d.intKey(f, "min_replicas", path, &a.MinReplicas)
	if f.get("max_replicas") == nil && f.lacks("max_replicas") {
		d.failf(v, "autoscaler has no max_replicas:; write %s", autoscalerExample)
	}
	d.intKey(f, "max_replicas", path, &a.MaxReplicas)
	if e := f.get("allow_idle_consumers"); e != nil {
		d.mark(path+".allow_idle_consumers", e.val)
		a.AllowIdleConsumers, _ = d.boolean(e.val, "allow_idle_consumers")
	}
	if e := f.get("tolerance"); e != nil {
		d.mark(path+".tolerance", e.val)
		a.Tolerance, _ = d.number(e.val, "tolerance")
	}
	if e := f.get("scale_up"); e != nil {
		a.ScaleUp = d.scalingRules(e.val, "scale_up", path+".scale_up", a.ScaleUp)
	}
	if e := f.get("scale_down"); e != nil {
		a.ScaleDown = d.scalingRules(e.val, "scale_down", path+".scale_down", a.ScaleDown)
	}
	a.Pod = d.podTemplate(f, path)
	s.Autoscaler = a
}

// scalingRules decodes one direction of the HPA's behavior over its defaults.
func (d *decoder) scalingRules(n *yaml.Node, key, path string, r sim.ScalingRules) sim.ScalingRules {
	d.mark(path, n)
	f, ok := d.mapping(n, key, []string{"stabilization_window", "select_policy", "policies"})
	if !ok {
		return r
	}
	d.durationKey(f, "stabilization_window", path, &r.StabilizationWindow)
	if e := f.get("select_policy"); e != nil {
		d.mark(path+".select_policy", e.val)
		if v, ok := d.str(e.val, "select_policy"); ok {
			r.SelectPolicy = v
		}
	}
	e := f.get("policies")
	if e == nil {
		return r
	}
	d.mark(path+".policies", e.val)
	const example = "[{type: pods, value: 4, period: 15s}]"
	items, ok := d.list(e.val, "policies", example)
	if !ok {
		return r
	}
	r.Policies = nil
	for i, it := range items {
		pp := fmt.Sprintf("%s.policies[%d]", path, i)
		pf, ok := d.mapping(it, "policy", []string{"type", "value", "period"})
		if !ok {
			continue
		}
		d.mark(pp, d.value(it))
		var p sim.ScalingPolicy
		if te := pf.get("type"); te != nil {
			d.mark(pp+".type", te.val)
			if t, ok := d.str(te.val, "type"); ok {
				switch t {
				case "pods":
				case "percent":
					p.Percent = true
				default:
					d.failf(d.value(te.val), "unknown policy type %q%s (allowed: pods, percent)", short(t), didYouMean(t, []string{"pods", "percent"}))
				}
			}
		} else if pf.lacks("type") {
			d.failf(d.value(it), "policy has no type:; write %s", example)
		}
		if pf.get("value") == nil && pf.lacks("value") {
			d.failf(d.value(it), "policy has no value:; write %s", example)
		}
		d.intKey(pf, "value", pp, &p.Value)
		if pf.get("period") == nil && pf.lacks("period") {
			d.failf(d.value(it), "policy has no period:; write %s", example)
		}
		d.durationKey(pf, "period", pp, &p.Period)
		r.Policies = append(r.Policies, p)
	}
	return r
}

// checkPod checks a pod template at path.
func (c *checker) checkPod(path string, t sim.PodTemplate, allowed []string) {
	c.checkDistribution(path+".start_time", "start_time", t.StartTime)
	nonNegative(c, path+".jitter", "jitter", t.Jitter)
	nonNegative(c, path+".termination_grace_period", "termination_grace_period", t.TerminationGracePeriod)
	if t.InstanceID != sim.InstanceIDInherit && !slices.Contains(allowed, string(t.InstanceID)) {
		c.problem(path+".instance_id", "unknown instance_id %q%s (allowed: %s)", short(string(t.InstanceID)), didYouMean(string(t.InstanceID), allowed), strings.Join(allowed, ", "))
	}
}

// checkRollout checks a rollout event.
func (c *checker) checkRollout(path string, r *sim.Rollout) {
	if r == nil {
		c.problem(path, "rollout has no description")
		return
	}
	if !slices.Contains(sim.WorkloadKinds(), string(r.Kind)) {
		c.problem(path+".kind", "unknown rollout kind %q%s (allowed: %s)", short(string(r.Kind)), didYouMean(string(r.Kind), sim.WorkloadKinds()), strings.Join(sim.WorkloadKinds(), ", "))
	}
	for _, v := range []struct {
		key string
		v   sim.IntOrPercent
	}{{"max_surge", r.MaxSurge}, {"max_unavailable", r.MaxUnavailable}} {
		if v.v.Value < 0 || (v.v.Percent && v.v.Value > 100) {
			c.problem(path+"."+v.key, "%s must be a count of pods or a percentage from 0%% to 100%%, found %s", v.key, v.v)
		}
	}
	switch {
	case r.Kind == sim.StatefulSet && r.MaxSurge.Value != 0:
		c.problem(path+".max_surge", "a statefulset has no max_surge: it deletes a pod before it recreates it; use max_unavailable")
	case r.Kind == sim.StatefulSet && r.MaxUnavailable.Value == 0:
		c.problem(path+".max_unavailable", "a statefulset's max_unavailable must be at least 1, found %s", r.MaxUnavailable)
	case r.MaxSurge.Value == 0 && r.MaxUnavailable.Value == 0:
		// The API server's ValidateRollingUpdateDeployment.
		c.problem(path+".max_unavailable", "max_surge and max_unavailable may not both be 0: no pod could ever be replaced")
	}
	nonNegative(c, path+".min_ready", "min_ready", r.MinReady)
	c.checkPod(path, r.Pod, sim.InstanceIDSources())
}

// checkAutoscaler checks the autoscaler section.
func (c *checker) checkAutoscaler() {
	a := c.s.Autoscaler
	if a == nil {
		return
	}
	const path = "autoscaler"
	if len(a.Members) == 0 {
		c.problem(path+".members", "the autoscaler scales no members")
	}
	scaled := make(map[string]bool, len(a.Members))
	for _, id := range a.Members {
		scaled[id] = true
		if _, ok := c.memberIndex[id]; !ok {
			c.problem(path+".members", "the autoscaler names unknown member %q%s", short(id), c.memberHint(id))
			break
		}
	}
	for i, ev := range c.s.Events {
		for _, id := range ev.Members {
			if ev.Kind == sim.EventRollout && scaled[id] {
				c.problem(fmt.Sprintf("events[%d].members", i), "%s is autoscaled; a rollout of an autoscaled workload is not modelled", id)
				break
			}
		}
	}
	nonNegative(c, path+".start", "start", a.Start)
	positive(c, path+".polling_interval", "polling_interval", a.PollingInterval)
	if !(a.LagThreshold > 0) || math.IsInf(a.LagThreshold, 0) {
		c.problem(path+".lag_threshold", "lag_threshold must be a positive number of records, found %v", a.LagThreshold)
	}
	if a.MinReplicas < 1 {
		c.problem(path+".min_replicas", "min_replicas must be at least 1, found %d (scaling to zero is not modelled)", a.MinReplicas)
	}
	if a.MaxReplicas < a.MinReplicas {
		c.problem(path+".max_replicas", "max_replicas %d is below min_replicas %d", a.MaxReplicas, a.MinReplicas)
	}
	if a.MaxReplicas > MaxMembers {
		c.problem(path+".max_replicas", "max_replicas must be at most %s, found %d", grouped(MaxMembers), a.MaxReplicas)
	}
	if !(a.Tolerance >= 0 && a.Tolerance < 1) {
		c.problem(path+".tolerance", "tolerance must be from 0 up to 1, found %v", a.Tolerance)
	}
	for _, dir := range []struct {
		key string
		r   sim.ScalingRules
	}{{"scale_up", a.ScaleUp}, {"scale_down", a.ScaleDown}} {
		p := path + "." + dir.key
		nonNegative(c, p+".stabilization_window", "stabilization_window", dir.r.StabilizationWindow)
		if !slices.Contains(sim.SelectPolicies(), dir.r.SelectPolicy) {
			c.problem(p+".select_policy", "unknown select_policy %q%s (allowed: %s)", short(dir.r.SelectPolicy), didYouMean(dir.r.SelectPolicy, sim.SelectPolicies()), strings.Join(sim.SelectPolicies(), ", "))
		}
		if len(dir.r.Policies) == 0 && dir.r.SelectPolicy != sim.SelectDisabled {
			c.problem(p+".policies", "%s needs at least one policy, or select_policy: disabled", dir.key)
		}
		for i, pol := range dir.r.Policies {
			pp := fmt.Sprintf("%s.policies[%d]", p, i)
			if pol.Value < 1 {
				c.problem(pp+".value", "a policy's value must be at least 1, found %d", pol.Value)
			}
			positive(c, pp+".period", "period", pol.Period)
		}
	}
	c.checkPod(path, a.Pod, []string{string(sim.InstanceIDPodName), string(sim.InstanceIDNone)})
}
