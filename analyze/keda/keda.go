package keda

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/capreport/capreport/analyze/inventory"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// translateScaledObject builds the HPA KEDA v2.19 would create for a
// ScaledObject (keda.md §1.3), with the webhook's checks as findings.
// The steps run in this order, which is the order of the findings.
func translateScaledObject(obj render.Object, annotations map[string]string) (*kedaResult, error) {
	var so scaledObject
	if err := decodeInto(obj.Doc, &so); err != nil {
		return nil, err
	}
	s := so.Spec
	t := &soTranslation{name: obj.Name, origin: obj.Origin, kedaResult: &kedaResult{keda: kedaSettings(s)}}
	ref := t.targetRef(s)
	minRC, maxRC := t.replicaBounds(s)
	behavior := t.hpaConfig(s.Advanced)
	behavior = t.pause(annotations, behavior)
	pairs := t.triggerMetrics(s.Triggers, minRC, maxRC, annotations)
	pairs = t.scalingModifiers(s.Advanced, s.Triggers, pairs)
	t.fallback(s)
	t.setHPA(ref, hpaMinReplicas(minRC), maxRC, behavior, pairs)
	t.apiServerChecks()
	return t.kedaResult, nil
}

// kedaSettings is what capreport keeps of KEDA's own settings, with KEDA's
// defaults; the triggers are filled in as they are translated.
func kedaSettings(s scaledObjectSpec) *KEDA {
	return &KEDA{
		MinReplicaCount:  s.MinReplicaCount,
		IdleReplicaCount: s.IdleReplicaCount,
		PollingInterval:  secondsOr(s.PollingInterval, inventory.DefaultKEDAPollingInterval),
		CooldownPeriod:   secondsOr(s.CooldownPeriod, inventory.DefaultKEDACooldownPeriod),
		// initialCooldownPeriod defaults to 0 s.
		InitialCooldownPeriod: secondsOr(s.InitialCooldownPeriod, 0),
		Fallback:              s.Fallback,
		// Full capacity up front: metrics point into this slice.
		Triggers: make([]Trigger, 0, len(s.Triggers)),
	}
}

// targetRef is the target reference, with KEDA's apps/v1 Deployment
// defaults; a ScaledObject without a target name is refused.
func (t *soTranslation) targetRef(s scaledObjectSpec) autoscalingv2.CrossVersionObjectReference {
	ref := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment"}
	if tr := s.ScaleTargetRef; tr != nil {
		ref.Name = tr.Name
		if tr.APIVersion != "" {
			ref.APIVersion = tr.APIVersion
		}
		if tr.Kind != "" {
			ref.Kind = tr.Kind
		}
	}
	if ref.Name != "" {
		return ref
	}
	if s.DeploymentName != "" || (s.ScaleTargetRef != nil && s.ScaleTargetRef.DeploymentName != "") {
		t.fail(check.KEDAV1Schema, "move to keda.sh/v1alpha1: replace spec.scaleTargetRef.deploymentName with spec.scaleTargetRef.name",
			"ScaledObject %s uses deploymentName, a field of the KEDA v1 schema (keda.k8s.io) that KEDA v2 ignores", t.name)
	} else {
		t.fail(check.InvalidAutoscaler, "set spec.scaleTargetRef.name to the workload to scale",
			"ScaledObject %s has no spec.scaleTargetRef.name; KEDA refuses to reconcile it", t.name)
	}
	return ref
}

// replicaBounds returns minReplicaCount and maxReplicaCount with KEDA's
// defaults, after the webhook's bounds checks (BoundsError), and warns
// about an idleReplicaCount other than 0.
func (t *soTranslation) replicaBounds(s scaledObjectSpec) (minRC, maxRC int32) {
	minRC = 0
	if s.MinReplicaCount != nil {
		minRC = *s.MinReplicaCount
	}
	maxRC = int32(inventory.DefaultKEDAMaxReplicas)
	if s.MaxReplicaCount != nil {
		maxRC = *s.MaxReplicaCount
	}
	if msg, remedy := BoundsError(s.MinReplicaCount, s.MaxReplicaCount, s.IdleReplicaCount); msg != "" {
		t.fail(check.InvalidAutoscaler, remedy, "ScaledObject %s: %s; KEDA's webhook rejects it", t.name, msg)
	} else if s.IdleReplicaCount != nil && *s.IdleReplicaCount != 0 {
		t.add(inventory.FindingAt(t.origin, check.KEDAIdleReplicas, check.SeverityWarning,
			"use idleReplicaCount: 0 or remove it",
			"ScaledObject %s: idleReplicaCount %d flaps every polling interval (kedacore/keda#2314); only 0 works", t.name, *s.IdleReplicaCount))
	}
	return minRC, maxRC
}

// BoundsError is KEDA's CheckReplicaCountBoundsAreValid
// (apis/keda/v1alpha1/scaledobject_types.go): the minimum it checks is 0
// when minReplicaCount is unset and GetHPAMinReplicas() when it is set,
// which is 1 for minReplicaCount 0. So minReplicaCount 0 with
// idleReplicaCount 0 is valid, and minReplicaCount 0 with maxReplicaCount
// 0 is not. It returns the problem and its remedy, or "" when the bounds
// are valid.
func BoundsError(minRC, maxRC, idle *int32) (msg, remedy string) {
	checked, what := int32(0), "minReplicaCount, which counts as 0 when unset"
	if minRC != nil {
		checked, what = hpaMinReplicas(*minRC), fmt.Sprintf("minReplicaCount %d", *minRC)
		if *minRC != checked {
			what = fmt.Sprintf("minReplicaCount %d, which counts as %d (the HPA minimum KEDA computes)", *minRC, checked)
		}
	}
	maxChecked := int32(inventory.DefaultKEDAMaxReplicas)
	if maxRC != nil {
		maxChecked = *maxRC
	}
	if checked > maxChecked {
		return fmt.Sprintf("%s exceeds maxReplicaCount %d", what, maxChecked),
			"make minReplicaCount at most maxReplicaCount, and maxReplicaCount at least 1"
	}
	if idle != nil && *idle >= checked {
		return fmt.Sprintf("idleReplicaCount %d must be below %s", *idle, what),
			"set idleReplicaCount below minReplicaCount (only 0 works reliably), or remove it"
	}
	return "", ""
}

// hpaMinReplicas is the generated HPA's minReplicas: KEDA scales to zero
// itself, so the HPA never goes below 1.
func hpaMinReplicas(minRC int32) int32 {
	if minRC > 0 {
		return minRC
	}
	return 1
}

// hpaConfig applies advanced.horizontalPodAutoscalerConfig: the HPA's name
// (keda-hpa-<name> by default) and the behavior it returns.
func (t *soTranslation) hpaConfig(a *kedaAdvanced) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	t.hpaName = "keda-hpa-" + t.name
	if a == nil || a.HorizontalPodAutoscalerConfig == nil {
		return nil
	}
	if a.HorizontalPodAutoscalerConfig.Name != "" {
		t.hpaName = a.HorizontalPodAutoscalerConfig.Name
	}
	return a.HorizontalPodAutoscalerConfig.Behavior
}

// pause applies the pause annotations (keda.md §1.1): a paused ScaledObject
// is refused, and paused-scale-in/out disable one direction of behavior.
func (t *soTranslation) pause(annotations map[string]string, behavior *autoscalingv2.HorizontalPodAutoscalerBehavior) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	t.pauseReplicas(annotations)
	if v, ok := annotations[inventory.KEDAPausedScaleInAnnotation]; ok && kedaBool(v) {
		t.keda.PausedScaleIn = true
		behavior = disableDirection(behavior, false)
	}
	if v, ok := annotations[inventory.KEDAPausedScaleOutAnnotation]; ok && kedaBool(v) {
		t.keda.PausedScaleOut = true
		behavior = disableDirection(behavior, true)
	}
	if v, ok := annotations[inventory.KEDAForceActivationAnnotation]; ok && kedaBool(v) {
		t.keda.ForceActivation = true
	}
	return behavior
}

// pauseReplicas reads paused-replicas (which wins) and paused, and refuses
// a paused ScaledObject at the annotation that paused it.
func (t *soTranslation) pauseReplicas(annotations map[string]string) {
	pausedBy := ""
	if v, ok := annotations[inventory.KEDAPausedReplicasAnnotation]; ok {
		t.keda.Paused, pausedBy = true, inventory.KEDAPausedReplicasAnnotation
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32); err == nil {
			t.keda.PausedReplicas = ptr.To(int32(n))
		}
	} else if v, ok := annotations[inventory.KEDAPausedAnnotation]; ok && kedaBool(v) {
		t.keda.Paused, pausedBy = true, inventory.KEDAPausedAnnotation
	}
	if !t.keda.Paused {
		return
	}
	what := "stays at its current replicas"
	if t.keda.PausedReplicas != nil {
		what = fmt.Sprintf("is held at %d replicas", *t.keda.PausedReplicas)
	}
	t.refuse(inventory.FindingAt(inventory.AnnotationOrigin(t.origin, pausedBy), check.KEDAPaused, check.SeverityWarning, "remove the autoscaling.keda.sh/paused annotations to price this autoscaler",
		"ScaledObject %s is paused: KEDA deletes its HPA and the target %s, so nothing scales", t.name, what))
}

// triggerMetrics translates the triggers into HPA metrics, in trigger
// order as KEDA's scalers cache lists them, with the webhook's trigger
// checks and the partitions annotation's cap on Kafka triggers.
func (t *soTranslation) triggerMetrics(triggers []scaledObjectTrigger, minRC, maxRC int32, annotations map[string]string) (pairs []metricPair) {
	if len(triggers) == 0 {
		t.fail(check.InvalidAutoscaler, "add at least one trigger", "ScaledObject %s has no triggers; KEDA requires at least one", t.name)
	}
	partitions, hasPartitions := t.partitions(annotations)
	names := map[string]int{}       // trigger name → index
	metricNames := map[string]int{} // External metric name → trigger index
	for i, st := range triggers {
		t.uniqueTriggerName(i, st.Name, names)
		t.cachedMetrics(i, st)
		p, ok := t.triggerMetric(i, st)
		if !ok {
			continue
		}
		if p.spec.Type != autoscalingv2.ExternalMetricSourceType {
			pairs = append(pairs, p)
			continue
		}
		if st.Type == "kafka" && hasPartitions && p.m.Trigger.Metadata["allowIdleConsumers"] != "true" {
			t.capAtPartitions(&p.m, partitions, maxRC)
		}
		t.uniqueMetricName(i, p.m.Name, metricNames)
		pairs = append(pairs, p)
	}
	if onlyResourceTriggers(triggers) && minRC == 0 {
		t.fail(check.InvalidAutoscaler, "set minReplicaCount to 1 or more, or add a non-cpu/memory trigger",
			"ScaledObject %s: every trigger is cpu or memory and minReplicaCount is 0; KEDA's webhook rejects scaling to zero on resource metrics", t.name)
	}
	return pairs
}

// partitions reads the partitions annotation; ok is false when it is
// absent or invalid (which is a finding).
func (t *soTranslation) partitions(annotations map[string]string) (n int32, ok bool) {
	v, ok := annotations[inventory.PartitionsAnnotation]
	if !ok {
		return 0, false
	}
	p, err := config.ParsePartitions(v)
	if err != nil {
		t.add(inventory.FindingAt(inventory.AnnotationOrigin(t.origin, inventory.PartitionsAnnotation), check.InvalidAnnotation, check.SeverityError, "write the topic's partition count, e.g. \"12\"",
			"%s: %v", inventory.PartitionsAnnotation, err))
		return 0, false
	}
	return p, true
}

// uniqueTriggerName refuses a trigger name already used by another trigger.
func (t *soTranslation) uniqueTriggerName(i int, name string, names map[string]int) {
	if name == "" {
		return
	}
	if prev, dup := names[name]; dup {
		t.fail(check.KEDAInvalidTrigger, "give each trigger a unique name",
			"ScaledObject %s: triggers %d and %d share the name %q; KEDA's webhook rejects it", t.name, prev, i, name)
	}
	names[name] = i
}

// uniqueMetricName refuses an External metric name already given by
// another trigger.
func (t *soTranslation) uniqueMetricName(i int, name string, metricNames map[string]int) {
	if prev, dup := metricNames[name]; dup {
		t.fail(check.KEDAInvalidTrigger, "", "ScaledObject %s: triggers %d and %d give the same metric name %s", t.name, prev, i, name)
	}
	metricNames[name] = i
}

// triggerMetric records trigger i and translates it into its HPA metric,
// External metrics named and selected as KEDA does; ok is false when KEDA
// could not build the scaler.
func (t *soTranslation) triggerMetric(i int, st scaledObjectTrigger) (p metricPair, ok bool) {
	trig := Trigger{Index: i, Type: st.Type, Name: st.Name, MetricType: st.MetricType,
		UseCachedMetrics: st.UseCachedMetrics, Metadata: inventory.StringMap(st.Metadata)}
	tr, err := translateKEDATrigger(trig)
	trig.ActivationMilli, trig.ActivationParam = tr.activation, tr.activationParam
	t.keda.Triggers = append(t.keda.Triggers, trig)
	if err != nil {
		t.fail(check.KEDAInvalidTrigger, "fix the trigger's metadata (keda.md §2 lists each scaler's parameters)",
			"ScaledObject %s: trigger %d (%s): %v; KEDA cannot build the scaler and the ScaledObject does not reconcile", t.name, i, st.Type, err)
		return metricPair{}, false
	}
	for _, note := range tr.notes {
		t.add(inventory.FindingAt(t.origin, note.check, note.severity, note.remediation, "ScaledObject %s: trigger %d (%s): %s", t.name, i, st.Type, note.msg))
	}
	// Its own copy: a pointer into t.keda.Triggers would dangle if the
	// slice ever grew past its capacity.
	own := trig
	tr.metric.Trigger = &own
	if tr.spec.Type == autoscalingv2.ExternalMetricSourceType {
		tr.spec.External.Metric.Name = fmt.Sprintf("s%d-%s", i, normalizeKEDA(tr.name))
		tr.spec.External.Metric.Selector = t.selector()
		tr.metric.Name = tr.spec.External.Metric.Name
	}
	return metricPair{tr.spec, tr.metric}, true
}

// selector is the label selector KEDA puts on the External metrics of
// this ScaledObject.
func (t *soTranslation) selector() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"scaledobject.keda.sh/name": t.name}}
}

// capAtPartitions caps a Kafka trigger's replicas at the topic's
// partitions, warning when maxReplicaCount goes beyond them.
func (t *soTranslation) capAtPartitions(m *Metric, partitions, maxRC int32) {
	m.ReplicaCap = ptr.To(partitions)
	if maxRC > partitions {
		t.add(inventory.FindingAt(t.origin, check.KafkaPartitions, check.SeverityWarning,
			fmt.Sprintf("lower maxReplicaCount to %d, or add partitions", partitions),
			"ScaledObject %s: maxReplicaCount %d exceeds the topic's %d partitions; KEDA caps the lag at partitions × lagThreshold, so consumers beyond %d sit idle", t.name, maxRC, partitions, partitions))
	}
}

// scalingModifiers replace every External metric with one composite, and
// (as hpa.go's getScaledObjectMetricSpecs does) keep only the Resource
// metrics beside it, dropping ContainerResource ones. Any field of
// scalingModifiers makes KEDA use them (its IsUsingModifiers), so one
// without a formula is refused, as is an invalid one, which leaves the
// metrics as they were.
func (t *soTranslation) scalingModifiers(a *kedaAdvanced, triggers []scaledObjectTrigger, pairs []metricPair) []metricPair {
	if a == nil || a.ScalingModifiers == nil || *a.ScalingModifiers == (kedaScalingModifiers{}) {
		return pairs
	}
	sm := a.ScalingModifiers
	t.keda.Formula = sm.Formula
	t.activationTarget(sm.ActivationTarget)
	mt, ok := t.compositeTarget(sm, triggers)
	if !ok {
		return pairs
	}
	var kept, external []metricPair
	for _, p := range pairs {
		switch p.spec.Type {
		case autoscalingv2.ResourceMetricSourceType:
			kept = append(kept, p)
		case autoscalingv2.ExternalMetricSourceType:
			external = append(external, p)
		}
	}
	sig, reason := compositeSignal(pairMetrics(external), sm.Formula)
	spec := autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
		Metric: autoscalingv2.MetricIdentifier{Name: "composite-metric", Selector: t.selector()},
		Target: mt,
	}}
	m := inventory.MetricFor(autoscalingv2.ExternalMetricSourceType, "composite-metric", "", mt)
	m.Signal, m.Reason = sig, reason
	return append(kept, metricPair{spec, m})
}

// compositeTarget checks scalingModifiers as KEDA's webhook does
// (ValidateAndCompileScalingModifiers) and returns the composite metric's
// target; ok is false when it refused them.
func (t *soTranslation) compositeTarget(sm *kedaScalingModifiers, triggers []scaledObjectTrigger) (_ autoscalingv2.MetricTarget, ok bool) {
	if sm.Formula == "" {
		t.fail(check.InvalidAutoscaler, "set advanced.scalingModifiers.formula", "ScaledObject %s: scalingModifiers without a formula", t.name)
		return autoscalingv2.MetricTarget{}, false
	}
	if p := kedaFormulaProblem(sm.Formula, formulaNames(triggers)); p != "" {
		t.fail(check.InvalidAutoscaler, "use only the names of the ScaledObject's non-cpu/memory triggers in the formula",
			"ScaledObject %s: scalingModifiers.formula %q: %s; KEDA's webhook rejects it", t.name, sm.Formula, p)
		return autoscalingv2.MetricTarget{}, false
	}
	// KEDA parses the target with ParseFloat as written, untrimmed.
	target, err := strconv.ParseFloat(sm.Target, 64)
	if err != nil || target <= 0 {
		t.fail(check.InvalidAutoscaler, "set advanced.scalingModifiers.target to a positive number",
			"ScaledObject %s: scalingModifiers.target %q is not a positive number", t.name, sm.Target)
		return autoscalingv2.MetricTarget{}, false
	}
	mt, err := kedaTarget(sm.MetricType, int64(target*1000))
	if err != nil {
		t.fail(check.InvalidAutoscaler, "use AverageValue or Value", "ScaledObject %s: scalingModifiers: %v", t.name, err)
		return autoscalingv2.MetricTarget{}, false
	}
	return mt, true
}

// activationTarget reads scalingModifiers.activationTarget (0 when
// empty), the threshold KEDA's 0 ↔ 1 gate holds the composite value to.
// KEDA parses it on every poll, not in its webhook: one that does not
// parse makes every poll an error, so the object never activates.
func (t *soTranslation) activationTarget(v string) {
	if strings.TrimSpace(v) == "" {
		return
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e12 {
		t.add(inventory.FindingAt(t.origin, check.InvalidAutoscaler, check.SeverityError, "set advanced.scalingModifiers.activationTarget to a number, or remove it",
			"ScaledObject %s: scalingModifiers.activationTarget %q is not a number; KEDA fails to parse it on every poll, so the object never activates", t.name, v))
		return
	}
	t.keda.ActivationTargetMilli = int64(f * 1000)
}

// setHPA fills in the generated HPA's spec and the metrics' descriptions.
// KEDA sorts metrics by source type (ContainerResource < External <
// Resource); a stable sort keeps trigger order within a type. KEDA's
// sort.Slice is not stable from 13 metrics on, and KEDA leaves a
// composite metric after the Resource ones: the order changes nothing the
// HPA computes, so capreport keeps its readable one
// (internal/kedadiff/README.md, deliberate differences).
func (t *soTranslation) setHPA(ref autoscalingv2.CrossVersionObjectReference, minReplicas, maxReplicas int32,
	behavior *autoscalingv2.HorizontalPodAutoscalerBehavior, all []metricPair) {
	sort.SliceStable(all, func(i, j int) bool { return all[i].spec.Type < all[j].spec.Type })
	t.spec = autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: ref,
		MinReplicas:    ptr.To(minReplicas),
		MaxReplicas:    maxReplicas,
		Behavior:       behavior,
	}
	t.metrics = []Metric{}
	for _, p := range all {
		t.spec.Metrics = append(t.spec.Metrics, p.spec)
		t.metrics = append(t.metrics, p.m)
	}
}

// metricPair keeps an HPA metric and its description together while
// they are sorted.
type metricPair struct {
	spec autoscalingv2.MetricSpec
	m    Metric
}

func pairMetrics(ps []metricPair) []Metric {
	out := make([]Metric, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.m)
	}
	return out
}

// compositeSignal: a formula over triggers that all carry one signal
// (e.g. the sum of two queues) is assumed to carry it too; anything else is
// unknown, since a formula may divide or compare.
func compositeSignal(ms []Metric, formula string) (Signal, string) {
	if len(ms) == 0 {
		return inventory.SignalUnknown, "scalingModifiers formula over no external triggers"
	}
	sig := ms[0].Signal
	for _, m := range ms[1:] {
		if m.Signal != sig {
			return inventory.SignalUnknown, fmt.Sprintf("scalingModifiers formula %q mixes signals; set capreport.io/signal", formula)
		}
	}
	if sig == inventory.SignalUnknown {
		return inventory.SignalUnknown, fmt.Sprintf("scalingModifiers formula %q over triggers of unknown signal", formula)
	}
	return sig, fmt.Sprintf("assumed from its triggers, which are all %s (formula %q)", sig, formula)
}

// kedaBool follows KEDA's reading of pause annotations: a boolean, with
// anything unparsable counting as true.
func kedaBool(v string) bool {
	// Untrimmed, as KEDA reads it: "false " is not false.
	b, err := strconv.ParseBool(v)
	return err != nil || b
}

// disableDirection sets selectPolicy Disabled on one direction, as KEDA
// does for paused-scale-in/out (creating behavior when absent).
func disableDirection(b *autoscalingv2.HorizontalPodAutoscalerBehavior, up bool) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	if b == nil {
		b = &autoscalingv2.HorizontalPodAutoscalerBehavior{}
	} else {
		b = b.DeepCopy()
	}
	d := autoscalingv2.DisabledPolicySelect
	if up {
		if b.ScaleUp == nil {
			b.ScaleUp = &autoscalingv2.HPAScalingRules{}
		}
		b.ScaleUp.SelectPolicy = &d
	} else {
		if b.ScaleDown == nil {
			b.ScaleDown = &autoscalingv2.HPAScalingRules{}
		}
		b.ScaleDown.SelectPolicy = &d
	}
	return b
}

func secondsOr(p *int32, def time.Duration) time.Duration {
	if p == nil {
		return def
	}
	return time.Duration(*p) * time.Second
}

// normalizeKEDA is KEDA's NormalizeString (pkg/util/normalize_string.go).
func normalizeKEDA(s string) string {
	return strings.NewReplacer("/", "-", ".", "-", ":", "-", "%", "-", "(", "-", ")", "-").Replace(s)
}
