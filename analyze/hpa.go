package analyze

import (
	"encoding/json"
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// decodeInto re-marshals a rendered document into a typed struct. Rendered
// documents hold JSON-compatible values, so the round trip is exact; a type
// mismatch (a string where a number belongs) becomes an error the caller
// reports as a finding.
func decodeInto(doc map[string]any, v any) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Annotations in which autoscaling/v1 keeps what its schema cannot hold.
const (
	v1MetricsAnnotation  = "autoscaling.alpha.kubernetes.io/metrics"
	v1BehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior"
)

// hpaSpecV2 decodes an HPA of any served API version into the v2 spec,
// with the API server's defaulting applied.
func hpaSpecV2(apiVersion string, doc map[string]any) (autoscalingv2.HorizontalPodAutoscalerSpec, error) {
	var spec autoscalingv2.HorizontalPodAutoscalerSpec
	switch apiVersion {
	case "autoscaling/v1":
		var h autoscalingv1.HorizontalPodAutoscaler
		if err := decodeInto(doc, &h); err != nil {
			return spec, err
		}
		spec = autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference(h.Spec.ScaleTargetRef),
			MinReplicas:    h.Spec.MinReplicas,
			MaxReplicas:    h.Spec.MaxReplicas,
		}
		// v1 carries other metrics and behavior in annotations; the
		// conversion in k8s.io/kubernetes (pkg/apis/autoscaling/v1/
		// conversion.go) puts them first, then the CPU target.
		if enc, ok := h.Annotations[v1MetricsAnnotation]; ok {
			var other []v2beta1Metric
			if err := json.Unmarshal([]byte(enc), &other); err != nil {
				return spec, fmt.Errorf("annotation %s: %w", v1MetricsAnnotation, err)
			}
			conv, err := v2beta1Spec{Metrics: other}.toV2()
			if err != nil {
				return spec, fmt.Errorf("annotation %s: %w", v1MetricsAnnotation, err)
			}
			spec.Metrics = conv.Metrics
		}
		if h.Spec.TargetCPUUtilizationPercentage != nil {
			spec.Metrics = append(spec.Metrics, cpuUtilization(*h.Spec.TargetCPUUtilizationPercentage))
		}
		if enc, ok := h.Annotations[v1BehaviorAnnotation]; ok {
			var b autoscalingv2.HorizontalPodAutoscalerBehavior
			if err := json.Unmarshal([]byte(enc), &b); err != nil {
				return spec, fmt.Errorf("annotation %s: %w", v1BehaviorAnnotation, err)
			}
			spec.Behavior = &b
		}
	case "autoscaling/v2beta1":
		var h struct {
			Spec v2beta1Spec `json:"spec"`
		}
		if err := decodeInto(doc, &h); err != nil {
			return spec, err
		}
		var err error
		if spec, err = h.Spec.toV2(); err != nil {
			return spec, err
		}
	case "autoscaling/v2beta2", "autoscaling/v2":
		// v2beta2 has v2's shape (v2 only added the per-rule tolerance), so
		// the v2 types decode both.
		var h autoscalingv2.HorizontalPodAutoscaler
		if err := decodeInto(doc, &h); err != nil {
			return spec, err
		}
		spec = h.Spec
	default:
		return spec, fmt.Errorf("apiVersion %s is not an HPA version capreport knows (autoscaling/v1, v2beta1, v2beta2, v2)", apiVersion)
	}
	defaultHPASpec(&spec)
	return spec, nil
}

// defaultHPASpec applies autoscaling/v2 API defaulting
// (pkg/apis/autoscaling/v2/defaults.go) except behavior, which the
// controller port fills in when it is non-nil.
func defaultHPASpec(spec *autoscalingv2.HorizontalPodAutoscalerSpec) {
	if spec.MinReplicas == nil {
		spec.MinReplicas = ptrTo[int32](1)
	}
	if len(spec.Metrics) == 0 {
		spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(DefaultHPACPUUtilization)}
	}
}

func cpuUtilization(pct int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptrTo(pct)},
		},
	}
}

// The v2beta1 shapes, declared here because k8s.io/api no longer ships
// them. Only the fields that matter to scaling are kept.
type v2beta1Spec struct {
	ScaleTargetRef autoscalingv2.CrossVersionObjectReference `json:"scaleTargetRef"`
	MinReplicas    *int32                                    `json:"minReplicas,omitempty"`
	MaxReplicas    int32                                     `json:"maxReplicas"`
	Metrics        []v2beta1Metric                           `json:"metrics,omitempty"`
}

type v2beta1Metric struct {
	Type              autoscalingv2.MetricSourceType `json:"type"`
	Object            *v2beta1Object                 `json:"object,omitempty"`
	Pods              *v2beta1Pods                   `json:"pods,omitempty"`
	Resource          *v2beta1Resource               `json:"resource,omitempty"`
	ContainerResource *v2beta1Resource               `json:"containerResource,omitempty"`
	External          *v2beta1External               `json:"external,omitempty"`
}

type v2beta1Object struct {
	Target       autoscalingv2.CrossVersionObjectReference `json:"target"`
	MetricName   string                                    `json:"metricName"`
	TargetValue  resource.Quantity                         `json:"targetValue"`
	Selector     *metav1.LabelSelector                     `json:"selector,omitempty"`
	AverageValue *resource.Quantity                        `json:"averageValue,omitempty"`
}

type v2beta1Pods struct {
	MetricName         string                `json:"metricName"`
	TargetAverageValue resource.Quantity     `json:"targetAverageValue"`
	Selector           *metav1.LabelSelector `json:"selector,omitempty"`
}

type v2beta1Resource struct {
	Name                     corev1.ResourceName `json:"name"`
	Container                string              `json:"container,omitempty"`
	TargetAverageUtilization *int32              `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *resource.Quantity  `json:"targetAverageValue,omitempty"`
}

type v2beta1External struct {
	MetricName         string                `json:"metricName"`
	MetricSelector     *metav1.LabelSelector `json:"metricSelector,omitempty"`
	TargetValue        *resource.Quantity    `json:"targetValue,omitempty"`
	TargetAverageValue *resource.Quantity    `json:"targetAverageValue,omitempty"`
}

// toV2 follows the v2beta1 → internal conversion of k8s.io/kubernetes
// (pkg/apis/autoscaling/v2beta1/conversion.go): utilization wins over an
// average value, an Object's averageValue makes it AverageValue.
func (s v2beta1Spec) toV2() (autoscalingv2.HorizontalPodAutoscalerSpec, error) {
	out := autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: s.ScaleTargetRef,
		MinReplicas:    s.MinReplicas,
		MaxReplicas:    s.MaxReplicas,
	}
	for i, m := range s.Metrics {
		v2 := autoscalingv2.MetricSpec{Type: m.Type}
		switch {
		case m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil:
			v2.Resource = &autoscalingv2.ResourceMetricSource{Name: m.Resource.Name, Target: resourceTarget(m.Resource)}
		case m.Type == autoscalingv2.ContainerResourceMetricSourceType && m.ContainerResource != nil:
			v2.ContainerResource = &autoscalingv2.ContainerResourceMetricSource{
				Name: m.ContainerResource.Name, Container: m.ContainerResource.Container, Target: resourceTarget(m.ContainerResource)}
		case m.Type == autoscalingv2.PodsMetricSourceType && m.Pods != nil:
			q := m.Pods.TargetAverageValue
			v2.Pods = &autoscalingv2.PodsMetricSource{
				Metric: autoscalingv2.MetricIdentifier{Name: m.Pods.MetricName, Selector: m.Pods.Selector},
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q},
			}
		case m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil:
			t := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptrTo(m.Object.TargetValue)}
			if m.Object.AverageValue != nil {
				t = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: m.Object.AverageValue}
			}
			v2.Object = &autoscalingv2.ObjectMetricSource{
				DescribedObject: m.Object.Target,
				Metric:          autoscalingv2.MetricIdentifier{Name: m.Object.MetricName, Selector: m.Object.Selector},
				Target:          t,
			}
		case m.Type == autoscalingv2.ExternalMetricSourceType && m.External != nil:
			var t autoscalingv2.MetricTarget
			switch {
			case m.External.TargetValue != nil:
				t = autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: m.External.TargetValue}
			case m.External.TargetAverageValue != nil:
				t = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: m.External.TargetAverageValue}
			default:
				return out, fmt.Errorf("metrics[%d]: external metric %q sets neither targetValue nor targetAverageValue", i, m.External.MetricName)
			}
			v2.External = &autoscalingv2.ExternalMetricSource{
				Metric: autoscalingv2.MetricIdentifier{Name: m.External.MetricName, Selector: m.External.MetricSelector},
				Target: t,
			}
		default:
			return out, fmt.Errorf("metrics[%d]: type %q without its %s block", i, m.Type, lowerFirst(string(m.Type)))
		}
		out.Metrics = append(out.Metrics, v2)
	}
	return out, nil
}

func resourceTarget(r *v2beta1Resource) autoscalingv2.MetricTarget {
	if r.TargetAverageUtilization != nil {
		return autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: r.TargetAverageUtilization}
	}
	return autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: r.TargetAverageValue}
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func ptrTo[T any](v T) *T { return &v }
