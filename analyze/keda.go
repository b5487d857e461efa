package analyze

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capreport/capreport/render"
)

// scaledObject is the part of keda.sh/v1alpha1 ScaledObject that shapes the
// generated HPA (keda.md §1). Trigger metadata is decoded loosely: KEDA's CRD
// wants strings, but a chart may render `lagThreshold: 10`, which means the
// same thing to a reader.
type scaledObject struct {
	Spec struct {
		ScaleTargetRef *struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Name       string `json:"name"`
			// DeploymentName is the KEDA v1 schema's target field.
			DeploymentName string `json:"deploymentName"`
		} `json:"scaleTargetRef"`
		DeploymentName        string `json:"deploymentName"` // the v1 schema's field
		PollingInterval       *int32 `json:"pollingInterval"`
		CooldownPeriod        *int32 `json:"cooldownPeriod"`
		InitialCooldownPeriod *int32 `json:"initialCooldownPeriod"`
		MinReplicaCount       *int32 `json:"minReplicaCount"`
		MaxReplicaCount       *int32 `json:"maxReplicaCount"`
		IdleReplicaCount      *int32 `json:"idleReplicaCount"`
		Advanced              *struct {
			HorizontalPodAutoscalerConfig *struct {
				Name     string                                         `json:"name"`
				Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior `json:"behavior"`
			} `json:"horizontalPodAutoscalerConfig"`
			ScalingModifiers *struct {
				Formula          string `json:"formula"`
				Target           string `json:"target"`
				ActivationTarget string `json:"activationTarget"`
				MetricType       string `json:"metricType"`
			} `json:"scalingModifiers"`
		} `json:"advanced"`
		Fallback *KEDAFallback `json:"fallback"`
		Triggers []struct {
			Type             string         `json:"type"`
			Name             string         `json:"name"`
			MetricType       string         `json:"metricType"`
			UseCachedMetrics bool           `json:"useCachedMetrics"`
			Metadata         map[string]any `json:"metadata"`
		} `json:"triggers"`
	} `json:"spec"`
}

// kedaResult is a translated ScaledObject.
type kedaResult struct {
	spec     autoscalingv2.HorizontalPodAutoscalerSpec
	hpaName  string
	metrics  []Metric
	keda     *KEDA
	findings []Finding
	unpriced string
}

// translateScaledObject builds the HPA KEDA v2.19 would create for a
// ScaledObject (keda.md §1.3), with the webhook's checks as findings.
func translateScaledObject(obj render.Object, annotations map[string]string) (*kedaResult, error) {
	var so scaledObject
	if err := decodeInto(obj.Doc, &so); err != nil {
		return nil, err
	}
	s := so.Spec
	r := &kedaResult{keda: &KEDA{
		MinReplicaCount:  s.MinReplicaCount,
		IdleReplicaCount: s.IdleReplicaCount,
		PollingInterval:  secondsOr(s.PollingInterval, DefaultKEDAPollingInterval),
		CooldownPeriod:   secondsOr(s.CooldownPeriod, DefaultKEDACooldownPeriod),
		// initialCooldownPeriod defaults to 0 s.
		InitialCooldownPeriod: secondsOr(s.InitialCooldownPeriod, 0),
		Fallback:              s.Fallback,
		// Full capacity up front: metrics point into this slice.
		Triggers: make([]Trigger, 0, len(s.Triggers)),
	}}
	o := obj.Origin
	fail := func(check, remediation, format string, args ...any) {
		f := findingAt(o, check, SeverityError, remediation, format, args...)
		r.findings = append(r.findings, f)
		if r.unpriced == "" {
			r.unpriced = f.Message
		}
	}

	// Target reference, with KEDA's apps/v1 Deployment defaults.
	ref := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment"}
	if t := s.ScaleTargetRef; t != nil {
		ref.Name = t.Name
		if t.APIVersion != "" {
			ref.APIVersion = t.APIVersion
		}
		if t.Kind != "" {
			ref.Kind = t.Kind
		}
	}
	if ref.Name == "" {
		if s.DeploymentName != "" || (s.ScaleTargetRef != nil && s.ScaleTargetRef.DeploymentName != "") {
			fail(CheckKEDAV1Schema, "move to keda.sh/v1alpha1: replace spec.scaleTargetRef.deploymentName with spec.scaleTargetRef.name",
				"ScaledObject %s uses deploymentName, a field of the KEDA v1 schema (keda.k8s.io) that KEDA v2 ignores", obj.Name)
		} else {
			fail(CheckInvalidAutoscaler, "set spec.scaleTargetRef.name to the workload to scale",
				"ScaledObject %s has no spec.scaleTargetRef.name; KEDA refuses to reconcile it", obj.Name)
		}
	}

	// Replica bounds (keda.md §1.3 and the webhook's bounds check).
	minRC := int32(0)
	if s.MinReplicaCount != nil {
		minRC = *s.MinReplicaCount
	}
	maxRC := int32(DefaultKEDAMaxReplicas)
	if s.MaxReplicaCount != nil {
		maxRC = *s.MaxReplicaCount
	}
	hpaMin := int32(1)
	if minRC > 0 {
		hpaMin = minRC
	}
	if minRC > maxRC {
		fail(CheckInvalidAutoscaler, "make minReplicaCount at most maxReplicaCount",
			"ScaledObject %s: minReplicaCount %d exceeds maxReplicaCount %d; KEDA's webhook rejects it", obj.Name, minRC, maxRC)
	}
	if s.IdleReplicaCount != nil {
		if *s.IdleReplicaCount >= minRC {
			fail(CheckInvalidAutoscaler, "set idleReplicaCount below minReplicaCount (only 0 works reliably)",
				"ScaledObject %s: idleReplicaCount %d must be below minReplicaCount %d", obj.Name, *s.IdleReplicaCount, minRC)
		} else if *s.IdleReplicaCount != 0 {
			r.findings = append(r.findings, findingAt(o, CheckKEDAIdleReplicas, SeverityWarning,
				"use idleReplicaCount: 0 or remove it",
				"ScaledObject %s: idleReplicaCount %d flaps every polling interval (kedacore/keda#2314); only 0 works", obj.Name, *s.IdleReplicaCount))
		}
	}

	r.hpaName = "keda-hpa-" + obj.Name
	var behavior *autoscalingv2.HorizontalPodAutoscalerBehavior
	if a := s.Advanced; a != nil && a.HorizontalPodAutoscalerConfig != nil {
		if a.HorizontalPodAutoscalerConfig.Name != "" {
			r.hpaName = a.HorizontalPodAutoscalerConfig.Name
		}
		behavior = a.HorizontalPodAutoscalerConfig.Behavior
	}

	// Pause annotations (keda.md §1.1).
	pausedBy := ""
	if v, ok := annotations[KEDAPausedReplicasAnnotation]; ok {
		r.keda.Paused, pausedBy = true, KEDAPausedReplicasAnnotation
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32); err == nil {
			r.keda.PausedReplicas = ptrTo(int32(n))
		}
	} else if v, ok := annotations[KEDAPausedAnnotation]; ok && kedaBool(v) {
		r.keda.Paused, pausedBy = true, KEDAPausedAnnotation
	}
	if r.keda.Paused {
		what := "stays at its current replicas"
		if r.keda.PausedReplicas != nil {
			what = fmt.Sprintf("is held at %d replicas", *r.keda.PausedReplicas)
		}
		f := findingAt(annotationOrigin(o, pausedBy), CheckKEDAPaused, SeverityWarning, "remove the autoscaling.keda.sh/paused annotations to price this autoscaler",
			"ScaledObject %s is paused: KEDA deletes its HPA and the target %s, so nothing scales", obj.Name, what)
		r.findings = append(r.findings, f)
		if r.unpriced == "" {
			r.unpriced = f.Message
		}
	}
	if v, ok := annotations[KEDAPausedScaleInAnnotation]; ok && kedaBool(v) {
		r.keda.PausedScaleIn = true
		behavior = disableDirection(behavior, false)
	}
	if v, ok := annotations[KEDAPausedScaleOutAnnotation]; ok && kedaBool(v) {
		r.keda.PausedScaleOut = true
		behavior = disableDirection(behavior, true)
	}

	// Triggers → metrics.
	if len(s.Triggers) == 0 {
		fail(CheckInvalidAutoscaler, "add at least one trigger", "ScaledObject %s has no triggers; KEDA requires at least one", obj.Name)
	}
	var resourcePairs, externalPairs []metricPair
	names := map[string]int{}       // trigger name → index
	metricNames := map[string]int{} // External metric name → trigger index
	allResource := len(s.Triggers) > 0
	partitions, hasPartitions := int32(0), false
	if v, ok := annotations[PartitionsAnnotation]; ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil || n <= 0 {
			r.findings = append(r.findings, findingAt(annotationOrigin(o, PartitionsAnnotation), CheckInvalidAnnotation, SeverityError, "write the topic's partition count, e.g. \"12\"",
				"%s: %q is not a positive partition count", PartitionsAnnotation, v))
		} else {
			partitions, hasPartitions = int32(n), true
		}
	}
	for i, t := range s.Triggers {
		if t.Type != "cpu" && t.Type != "memory" {
			allResource = false
		}
		trig := Trigger{Index: i, Type: t.Type, Name: t.Name, MetricType: t.MetricType,
			UseCachedMetrics: t.UseCachedMetrics, Metadata: stringMap(t.Metadata)}
		if t.Name != "" {
			if prev, dup := names[t.Name]; dup {
				fail(CheckKEDAInvalidTrigger, "give each trigger a unique name",
					"ScaledObject %s: triggers %d and %d share the name %q; KEDA's webhook rejects it", obj.Name, prev, i, t.Name)
			}
			names[t.Name] = i
		}
		tr, err := translateTrigger(trig)
		if tr.activation != 0 {
			trig.ActivationMilli = tr.activation
		}
		r.keda.Triggers = append(r.keda.Triggers, trig)
		if err != nil {
			fail(CheckKEDAInvalidTrigger, "fix the trigger's metadata (keda.md §2 lists each scaler's parameters)",
				"ScaledObject %s: trigger %d (%s): %v; KEDA cannot build the scaler and the ScaledObject does not reconcile", obj.Name, i, t.Type, err)
			continue
		}
		for _, note := range tr.notes {
			r.findings = append(r.findings, findingAt(o, note.check, note.severity, note.remediation, "ScaledObject %s: trigger %d (%s): %s", obj.Name, i, t.Type, note.msg))
		}
		// Its own copy: a pointer into r.keda.Triggers would dangle if the
		// slice ever grew past its capacity.
		own := trig
		tr.metric.Trigger = &own
		if tr.spec.Type == autoscalingv2.ExternalMetricSourceType {
			tr.spec.External.Metric.Name = fmt.Sprintf("s%d-%s", i, normalizeKEDA(tr.name))
			tr.spec.External.Metric.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"scaledobject.keda.sh/name": obj.Name}}
			tr.metric.Name = tr.spec.External.Metric.Name
			if t.Type == "kafka" && hasPartitions && trig.Metadata["allowIdleConsumers"] != "true" {
				tr.metric.ReplicaCap = ptrTo(partitions)
				if maxRC > partitions {
					r.findings = append(r.findings, findingAt(o, CheckKafkaPartitions, SeverityWarning,
						fmt.Sprintf("lower maxReplicaCount to %d, or add partitions", partitions),
						"ScaledObject %s: maxReplicaCount %d exceeds the topic's %d partitions; KEDA caps the lag at partitions × lagThreshold, so consumers beyond %d sit idle", obj.Name, maxRC, partitions, partitions))
				}
			}
			if prev, dup := metricNames[tr.metric.Name]; dup {
				fail(CheckKEDAInvalidTrigger, "", "ScaledObject %s: triggers %d and %d give the same metric name %s", obj.Name, prev, i, tr.metric.Name)
			}
			metricNames[tr.metric.Name] = i
			externalPairs = append(externalPairs, metricPair{tr.spec, tr.metric})
		} else {
			resourcePairs = append(resourcePairs, metricPair{tr.spec, tr.metric})
		}
	}
	if allResource && minRC == 0 && len(s.Triggers) > 0 {
		fail(CheckInvalidAutoscaler, "set minReplicaCount to 1 or more, or add a non-cpu/memory trigger",
			"ScaledObject %s: every trigger is cpu or memory and minReplicaCount is 0; KEDA's webhook rejects scaling to zero on resource metrics", obj.Name)
	}

	// scalingModifiers replace every External metric with one composite.
	if a := s.Advanced; a != nil && a.ScalingModifiers != nil && (a.ScalingModifiers.Formula != "" || a.ScalingModifiers.Target != "") {
		sm := a.ScalingModifiers
		r.keda.Formula = sm.Formula
		target, err := strconv.ParseFloat(strings.TrimSpace(sm.Target), 64)
		switch {
		case sm.Formula == "":
			fail(CheckInvalidAutoscaler, "set advanced.scalingModifiers.formula", "ScaledObject %s: scalingModifiers without a formula", obj.Name)
		case err != nil || target <= 0:
			fail(CheckInvalidAutoscaler, "set advanced.scalingModifiers.target to a positive number",
				"ScaledObject %s: scalingModifiers.target %q is not a positive number", obj.Name, sm.Target)
		default:
			mt, terr := kedaTarget(sm.MetricType, int64(target*1000))
			if terr != nil {
				fail(CheckInvalidAutoscaler, "use AverageValue or Value", "ScaledObject %s: scalingModifiers: %v", obj.Name, terr)
				break
			}
			sig, reason := compositeSignal(pairMetrics(externalPairs), sm.Formula)
			spec := autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
				Metric: autoscalingv2.MetricIdentifier{Name: "composite-metric",
					Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"scaledobject.keda.sh/name": obj.Name}}},
				Target: mt,
			}}
			m := metricFromTarget(autoscalingv2.ExternalMetricSourceType, "composite-metric", "", mt)
			m.Signal, m.Reason = sig, reason
			externalPairs = []metricPair{{spec, m}}
		}
	}

	// KEDA sorts metrics by source type (ContainerResource < External <
	// Resource); a stable sort keeps trigger order within a type.
	all := append(resourcePairs, externalPairs...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].spec.Type < all[j].spec.Type })
	r.spec = autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: ref,
		MinReplicas:    ptrTo(hpaMin),
		MaxReplicas:    maxRC,
		Behavior:       behavior,
	}
	r.metrics = []Metric{}
	for _, p := range all {
		r.spec.Metrics = append(r.spec.Metrics, p.spec)
		r.metrics = append(r.metrics, p.m)
	}
	return r, nil
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
		return SignalUnknown, "scalingModifiers formula over no external triggers"
	}
	sig := ms[0].Signal
	for _, m := range ms[1:] {
		if m.Signal != sig {
			return SignalUnknown, fmt.Sprintf("scalingModifiers formula %q mixes signals; set capreport.io/signal", formula)
		}
	}
	if sig == SignalUnknown {
		return SignalUnknown, fmt.Sprintf("scalingModifiers formula %q over triggers of unknown signal", formula)
	}
	return sig, fmt.Sprintf("assumed from its triggers, which are all %s (formula %q)", sig, formula)
}

// kedaBool follows KEDA's reading of pause annotations: a boolean, with
// anything unparsable counting as true.
func kedaBool(v string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
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

// stringMap renders trigger metadata values as the strings KEDA reads.
func stringMap(m map[string]any) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = scalarString(v)
	}
	return out
}

func scalarString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case json.Number:
		return x.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// normalizeKEDA is KEDA's NormalizeString (pkg/util/normalize_string.go).
func normalizeKEDA(s string) string {
	return strings.NewReplacer("/", "-", ".", "-", ":", "-", "%", "-", "(", "-", ")", "-").Replace(s)
}

// kedaTarget builds a trigger's metric target from its metricType
// (AverageValue when empty) and a value in milli-units.
func kedaTarget(metricType string, milli int64) (autoscalingv2.MetricTarget, error) {
	q := resource.NewMilliQuantity(milli, resource.DecimalSI)
	switch autoscalingv2.MetricTargetType(metricType) {
	case "", autoscalingv2.AverageValueMetricType:
		return autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q}, nil
	case autoscalingv2.ValueMetricType:
		return autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: q}, nil
	case autoscalingv2.UtilizationMetricType:
		return autoscalingv2.MetricTarget{}, fmt.Errorf("metricType Utilization is only for cpu and memory triggers")
	}
	return autoscalingv2.MetricTarget{}, fmt.Errorf("metricType %q is not AverageValue or Value", metricType)
}

// resourceMetricSpec builds the Resource or ContainerResource metric of a
// cpu/memory trigger.
func resourceMetricSpec(name corev1.ResourceName, container string, target autoscalingv2.MetricTarget) autoscalingv2.MetricSpec {
	if container != "" {
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ContainerResourceMetricSourceType,
			ContainerResource: &autoscalingv2.ContainerResourceMetricSource{Name: name, Container: container, Target: target}}
	}
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: name, Target: target}}
}
