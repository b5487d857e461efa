package analyze

import (
	"fmt"
	"regexp"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/capreport/capreport/analyze/inventory"
)

// describeHPAMetrics describes an HPA's metrics one for one and classifies
// their signals. A metric whose type names a block it lacks is described
// with an unknown signal and reported.
func describeHPAMetrics(spec autoscalingv2.HorizontalPodAutoscalerSpec) ([]Metric, []string) {
	out := make([]Metric, 0, len(spec.Metrics))
	var problems []string
	for i, ms := range spec.Metrics {
		var m Metric
		ok := true
		switch ms.Type {
		case autoscalingv2.ResourceMetricSourceType:
			if ok = ms.Resource != nil; ok {
				m = inventory.MetricFor(ms.Type, string(ms.Resource.Name), "", ms.Resource.Target)
			}
		case autoscalingv2.ContainerResourceMetricSourceType:
			if ok = ms.ContainerResource != nil; ok {
				m = inventory.MetricFor(ms.Type, string(ms.ContainerResource.Name), ms.ContainerResource.Container, ms.ContainerResource.Target)
			}
		case autoscalingv2.PodsMetricSourceType:
			if ok = ms.Pods != nil; ok {
				m = inventory.MetricFor(ms.Type, ms.Pods.Metric.Name, "", ms.Pods.Target)
			}
		case autoscalingv2.ObjectMetricSourceType:
			if ok = ms.Object != nil; ok {
				m = inventory.MetricFor(ms.Type, ms.Object.Metric.Name, "", ms.Object.Target)
			}
		case autoscalingv2.ExternalMetricSourceType:
			if ok = ms.External != nil; ok {
				m = inventory.MetricFor(ms.Type, ms.External.Metric.Name, "", ms.External.Target)
			}
		default:
			ok = false
		}
		if !ok {
			m = Metric{Type: ms.Type, Signal: SignalUnknown, Reason: fmt.Sprintf("metric type %q without its block", ms.Type)}
			problems = append(problems, fmt.Sprintf("metrics[%d]: type %q without its %s block", i, ms.Type, lowerFirst(string(ms.Type))))
			out = append(out, m)
			continue
		}
		if !m.TargetKnown {
			problems = append(problems, fmt.Sprintf("metrics[%d] (%s %s): target type %q without its value", i, m.Type, m.Name, m.TargetType))
		}
		m.Signal, m.Reason = classifyHPAMetric(m)
		out = append(out, m)
	}
	return out, problems
}

// Name patterns for custom metrics. They are guesses, so the reason says
// so and how to confirm.
var (
	rateNameRE    = regexp.MustCompile(`(?i)(per[_-]?(second|sec|minute)|(^|[_-])(rps|qps|rate)($|[_-])|throughput)`)
	backlogNameRE = regexp.MustCompile(`(?i)(queue|lag|backlog|pending|depth|undelivered|unacked|(^|[_-])messages?($|[_-]))`)
)

// classifyHPAMetric infers an HPA metric's signal: cpu and memory are
// saturating; custom metrics are classified by name when the name says it
// plainly, else unknown.
func classifyHPAMetric(m Metric) (Signal, string) {
	switch m.Type {
	case autoscalingv2.ResourceMetricSourceType, autoscalingv2.ContainerResourceMetricSourceType:
		if m.Name == string(corev1.ResourceCPU) || m.Name == string(corev1.ResourceMemory) {
			return SignalSaturating, ""
		}
		return SignalUnknown, fmt.Sprintf("resource %q is not cpu or memory", m.Name)
	}
	switch {
	case backlogNameRE.MatchString(m.Name):
		return SignalBacklog, fmt.Sprintf("guessed from the metric name %q; confirm with capreport.io/signal", m.Name)
	case rateNameRE.MatchString(m.Name):
		return SignalRate, fmt.Sprintf("guessed from the metric name %q; confirm with capreport.io/signal", m.Name)
	}
	return SignalUnknown, fmt.Sprintf("%s metric %q: capreport cannot tell what it measures; set capreport.io/signal", m.Type, m.Name)
}

// overallSignal combines per-metric signals. The HPA follows the metric
// that asks for the most replicas, so:
//
//  1. any backlog metric → backlog: under sustained overload a backlog grows
//     without bound and dominates every other metric, so the Time row
//     prices the autoscaler;
//  2. else, every metric saturating or rate, at least one saturating →
//     saturating (a rate metric grows with load like utilization does, but
//     utilization caps at 100 %, which is what the Size row prices);
//  3. else, every metric rate → rate;
//  4. else unknown: some metric is unknown and may dominate; the reason
//     names it.
func overallSignal(ms []Metric) (Signal, string) {
	if len(ms) == 0 {
		return SignalUnknown, "no metrics"
	}
	var sat, rate, backlog int
	var unknown []string
	for _, m := range ms {
		switch m.Signal {
		case SignalSaturating:
			sat++
		case SignalRate:
			rate++
		case SignalBacklog:
			backlog++
		default:
			label := m.Name
			if label == "" {
				label = string(m.Type)
			}
			if m.Reason != "" {
				label += " (" + m.Reason + ")"
			}
			unknown = append(unknown, label)
		}
	}
	switch {
	case backlog > 0:
		return SignalBacklog, ""
	case len(unknown) > 0:
		return SignalUnknown, "unknown signal: " + strings.Join(unknown, "; ")
	case sat > 0:
		return SignalSaturating, ""
	}
	return SignalRate, ""
}
