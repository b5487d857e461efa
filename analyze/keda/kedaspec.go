package keda

import (
	"encoding/json"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/capreport/capreport/analyze/inventory"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render"
)

// What a ScaledObject's translation works on, below the steps that
// translate it (keda.go, kedaconvert.go, triggers.go): the object as
// decoded, the translation in progress and its result, and how a trigger
// becomes a metric target.

// scaledObject is the part of keda.sh/v1alpha1 ScaledObject that shapes the
// generated HPA (keda.md §1). Trigger metadata is decoded loosely: KEDA's CRD
// wants strings, but a chart may render `lagThreshold: 10`, which means the
// same thing to a reader.
type scaledObject struct {
	Spec scaledObjectSpec `json:"spec"`
}

type scaledObjectSpec struct {
	ScaleTargetRef *struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Name       string `json:"name"`
		// DeploymentName is the KEDA v1 schema's target field.
		DeploymentName string `json:"deploymentName"`
	} `json:"scaleTargetRef"`
	DeploymentName        string                `json:"deploymentName"` // the v1 schema's field
	PollingInterval       *int32                `json:"pollingInterval"`
	CooldownPeriod        *int32                `json:"cooldownPeriod"`
	InitialCooldownPeriod *int32                `json:"initialCooldownPeriod"`
	MinReplicaCount       *int32                `json:"minReplicaCount"`
	MaxReplicaCount       *int32                `json:"maxReplicaCount"`
	IdleReplicaCount      *int32                `json:"idleReplicaCount"`
	Advanced              *kedaAdvanced         `json:"advanced"`
	Fallback              *KEDAFallback         `json:"fallback"`
	Triggers              []scaledObjectTrigger `json:"triggers"`
}

type kedaAdvanced struct {
	HorizontalPodAutoscalerConfig *struct {
		Name     string                                         `json:"name"`
		Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior `json:"behavior"`
	} `json:"horizontalPodAutoscalerConfig"`
	ScalingModifiers *kedaScalingModifiers `json:"scalingModifiers"`
}

type kedaScalingModifiers struct {
	Formula          string `json:"formula"`
	Target           string `json:"target"`
	ActivationTarget string `json:"activationTarget"`
	MetricType       string `json:"metricType"`
}

type scaledObjectTrigger struct {
	Type             string         `json:"type"`
	Name             string         `json:"name"`
	MetricType       string         `json:"metricType"`
	UseCachedMetrics bool           `json:"useCachedMetrics"`
	Metadata         map[string]any `json:"metadata"`
}

// kedaResult is a translated ScaledObject.
type kedaResult struct {
	spec     autoscalingv2.HorizontalPodAutoscalerSpec
	hpaName  string
	metrics  []Metric
	keda     *KEDA
	findings []check.Finding
	unpriced string
}

// soTranslation is one ScaledObject being translated: its name and origin,
// which findings name, and the result so far.
type soTranslation struct {
	name   string
	origin render.Origin
	*kedaResult
}

// add records a finding that leaves the autoscaler priced.
func (t *soTranslation) add(f check.Finding) {
	t.findings = append(t.findings, f)
}

// refuse records a finding that leaves the autoscaler unpriced; the first
// one gives the reason.
func (t *soTranslation) refuse(f check.Finding) {
	t.add(f)
	if t.unpriced == "" {
		t.unpriced = f.Message
	}
}

// fail refuses with an error at the ScaledObject.
func (t *soTranslation) fail(id, remediation, format string, args ...any) {
	t.refuse(inventory.FindingAt(t.origin, id, check.SeverityError, remediation, format, args...))
}

// onlyResourceTriggers reports whether there are triggers and every one
// is cpu or memory.
func onlyResourceTriggers(triggers []scaledObjectTrigger) bool {
	for _, st := range triggers {
		if st.Type != "cpu" && st.Type != "memory" {
			return false
		}
	}
	return len(triggers) > 0
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

// decodeInto re-marshals a rendered document into a typed struct, as
// analyze decodes an HPA: rendered documents hold JSON-compatible values,
// so the round trip is exact, and a type mismatch (a string where a
// number belongs) is an error the caller reports as a finding.
func decodeInto(doc map[string]any, v any) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
