package keda

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/capreport/capreport/analyze/inventory"
	"github.com/capreport/capreport/check"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// triggerResult is one KEDA trigger's contribution to the HPA.
type triggerResult struct {
	spec autoscalingv2.MetricSpec
	// name is the scaler part of an External metric's name, before the
	// "s<i>-" prefix and normalization.
	name       string
	metric     Metric
	activation int64 // milli-units
	// activationParam is the metadata key of the activation threshold.
	activationParam string
	notes           []triggerNote
}

// triggerNote is a finding about a trigger that does not break it.
type triggerNote struct {
	check, severity, remediation, msg string
}

// translateTrigger applies one scaler's defaults and parsing (keda.md §2).
// An error means KEDA itself would fail to build the scaler.
func translateTrigger(t Trigger) (triggerResult, error) {
	md := t.Metadata
	var r triggerResult
	var err error
	// external finishes an External metric whose target is in milli-units.
	external := func(name string, milli int64, sig Signal, reason string) error {
		mt, err := kedaTarget(t.MetricType, milli)
		if err != nil {
			return err
		}
		r.name = name
		r.spec = autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType,
			External: &autoscalingv2.ExternalMetricSource{Target: mt}}
		r.metric = inventory.MetricFor(autoscalingv2.ExternalMetricSourceType, "", "", mt)
		r.metric.Signal, r.metric.Reason = sig, reason
		if mt.Type == autoscalingv2.ValueMetricType && sig == inventory.SignalBacklog {
			r.notes = append(r.notes, triggerNote{check.KEDAValueMetricType, check.SeverityWarning, "drop metricType: Value (AverageValue divides the backlog among pods)",
				"metricType Value on a backlog trigger multiplies the desired replicas by the current count"})
		}
		return nil
	}
	// backlogInt handles the integer-threshold queue scalers.
	backlogInt := func(param string, def int64, activationParam, name string) error {
		v, err := intParam(md, param, def)
		if err != nil {
			return err
		}
		if v <= 0 {
			return fmt.Errorf("metadata.%s must be positive, got %d", param, v)
		}
		a, err := intParam(md, activationParam, 0)
		if err != nil {
			return err
		}
		r.activation, r.activationParam = a*1000, activationParam
		return external(name, v*1000, inventory.SignalBacklog, "")
	}

	switch t.Type {
	case "kafka":
		name := "kafka-" + md["topic"]
		if md["topic"] == "" {
			name = "kafka-" + md["consumerGroup"] + "-topics"
		}
		err = backlogInt("lagThreshold", 10, "activationLagThreshold", name)
	case "aws-sqs-queue":
		err = backlogInt("queueLength", 5, "activationQueueLength", "aws-sqs-"+sqsQueueName(md))
	case "azure-servicebus":
		name := md["queueName"]
		if name == "" {
			name = md["topicName"]
		}
		err = backlogInt("messageCount", 5, "activationMessageCount", "azure-servicebus-"+name)
	case "redis", "redis-cluster", "redis-sentinel":
		err = backlogInt("listLength", 5, "activationListLength", "redis-"+md["listName"])
	case "nats-jetstream":
		err = backlogInt("lagThreshold", 10, "activationLagThreshold", "nats-jetstream-"+md["stream"])
	case "rabbitmq":
		err = rabbitMQ(md, &r, external)
	case "gcp-pubsub":
		err = gcpPubSub(md, &r, external)
	case "prometheus":
		err = prometheus(md, &r, external)
	case "cpu", "memory":
		r, err = resourceTrigger(t)
	case "cron":
		err = cronTrigger(t, &r, external)
	default:
		err = unknownTrigger(t, &r, external)
	}
	return r, err
}

func rabbitMQ(md map[string]string, r *triggerResult, external func(string, int64, Signal, string) error) error {
	mode, value := "QueueLength", 20.0 // keda.md §2.3: nothing set → QueueLength 20
	_, hasMode := md["mode"]
	_, hasValue := md["value"]
	if ql, ok := md["queueLength"]; ok {
		if hasMode || hasValue {
			return fmt.Errorf("queueLength cannot be combined with mode/value")
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(ql), 64)
		if err != nil {
			return fmt.Errorf("metadata.queueLength %q is not a number", ql)
		}
		value = f
	} else if hasMode || hasValue {
		if !hasMode || !hasValue {
			return fmt.Errorf("mode and value must be set together")
		}
		mode = md["mode"]
		f, err := strconv.ParseFloat(strings.TrimSpace(md["value"]), 64)
		if err != nil || f == 0 {
			return fmt.Errorf("metadata.value %q is not a non-zero number", md["value"])
		}
		value = f
	}
	var sig Signal
	reason := ""
	switch mode {
	case "QueueLength":
		sig = inventory.SignalBacklog
	case "MessageRate", "DeliverGetRate":
		sig = inventory.SignalRate
	case "PublishedToDeliveredRatio":
		sig, reason = inventory.SignalUnknown, "rabbitmq mode PublishedToDeliveredRatio is a ratio, not a backlog or a rate"
	case "ExpectedQueueConsumptionTime":
		sig, reason = inventory.SignalUnknown, "rabbitmq mode ExpectedQueueConsumptionTime is an estimated age, not a backlog or a rate"
	default:
		return fmt.Errorf("metadata.mode %q is not QueueLength, MessageRate, DeliverGetRate, PublishedToDeliveredRatio or ExpectedQueueConsumptionTime", mode)
	}
	a, err := floatParam(md, "activationValue", 0)
	if err != nil {
		return err
	}
	r.activation, r.activationParam = int64(a*1000), "activationValue"
	return external("rabbitmq-"+url.QueryEscape(md["queueName"]), int64(value*1000), sig, reason)
}

func gcpPubSub(md map[string]string, r *triggerResult, external func(string, int64, Signal, string) error) error {
	mode, value := "SubscriptionSize", 10.0
	if ss, ok := md["subscriptionSize"]; ok {
		n, err := strconv.ParseInt(strings.TrimSpace(ss), 10, 64)
		if err != nil {
			return fmt.Errorf("metadata.subscriptionSize %q is not an integer", ss)
		}
		value = float64(n)
	} else {
		if m := md["mode"]; m != "" {
			mode = m
		}
		v, err := floatParam(md, "value", 10)
		if err != nil {
			return err
		}
		value = v
	}
	a, err := floatParam(md, "activationValue", 0)
	if err != nil {
		return err
	}
	r.activation, r.activationParam = int64(a*1000), "activationValue"
	name := md["subscriptionName"]
	if name == "" {
		name = md["topicName"]
	}
	sig, reason := inventory.SignalBacklog, ""
	switch {
	case mode == "SubscriptionSize":
	case strings.Contains(mode, "Age"):
		sig, reason = inventory.SignalUnknown, "gcp-pubsub mode "+mode+" is an age, not a backlog or a rate"
	default:
		sig, reason = inventory.SignalUnknown, "gcp-pubsub mode "+mode+" is not one capreport classifies"
	}
	return external("gcp-ps-"+name, int64(value*1000), sig, reason)
}

// rateQueryRE finds the PromQL functions that turn counters into rates.
var rateQueryRE = regexp.MustCompile(`\b(rate|irate|increase)\s*\(`)

func prometheus(md map[string]string, r *triggerResult, external func(string, int64, Signal, string) error) error {
	th, ok := md["threshold"]
	if !ok || strings.TrimSpace(th) == "" {
		return fmt.Errorf("metadata.threshold is required")
	}
	v, err := floatParam(md, "threshold", 0)
	if err != nil {
		return err
	}
	a, err := floatParam(md, "activationThreshold", 0)
	if err != nil {
		return err
	}
	r.activation, r.activationParam = int64(a*1000), "activationThreshold"
	sig, reason := inventory.SignalUnknown, "the prometheus query is not recognizably a rate; set capreport.io/signal to backlog, rate or saturating"
	if rateQueryRE.MatchString(md["query"]) {
		sig, reason = inventory.SignalRate, "the prometheus query takes a rate (rate, irate or increase)"
	}
	return external("prometheus", int64(v*1000), sig, reason)
}

// resourceTrigger handles cpu and memory triggers (keda.md §2.7).
func resourceTrigger(t Trigger) (triggerResult, error) {
	var r triggerResult
	mt := t.MetricType
	if mt == "" {
		if legacy := t.Metadata["type"]; legacy != "" {
			mt = legacy
			r.notes = append(r.notes, triggerNote{check.KEDADeprecated, check.SeverityWarning, "move metadata.type to the trigger's metricType",
				"metadata.type is deprecated and rejected from KEDA v2.18; read as metricType " + legacy})
		}
	}
	value := strings.TrimSpace(t.Metadata["value"])
	if value == "" {
		return r, fmt.Errorf("metadata.value is required")
	}
	var target autoscalingv2.MetricTarget
	switch autoscalingv2.MetricTargetType(mt) {
	case autoscalingv2.UtilizationMetricType:
		n, err := strconv.ParseInt(value, 10, 32)
		if err != nil || n <= 0 {
			return r, fmt.Errorf("metadata.value %q is not a positive percentage", value)
		}
		target = autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(int32(n))}
	case autoscalingv2.AverageValueMetricType:
		q, err := resource.ParseQuantity(value)
		if err != nil {
			return r, fmt.Errorf("metadata.value %q is not a quantity", value)
		}
		target = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q}
	case "":
		return r, fmt.Errorf("metricType is required (Utilization or AverageValue) since KEDA v2.18")
	default:
		return r, fmt.Errorf("metricType %q must be Utilization or AverageValue", mt)
	}
	container := t.Metadata["containerName"]
	r.spec = resourceMetricSpec(corev1.ResourceName(t.Type), container, target)
	r.metric = inventory.MetricFor(r.spec.Type, t.Type, container, target)
	r.metric.Signal = inventory.SignalSaturating
	return r, nil
}

// cronTrigger: a schedule, not a load signal (keda.md §2.10).
func cronTrigger(t Trigger, r *triggerResult, external func(string, int64, Signal, string) error) error {
	md := t.Metadata
	for _, k := range []string{"timezone", "start", "end"} {
		if strings.TrimSpace(md[k]) == "" {
			return fmt.Errorf("metadata.%s is required", k)
		}
	}
	if md["start"] == md["end"] {
		return fmt.Errorf("metadata.start and metadata.end must differ")
	}
	n, err := intParam(md, "desiredReplicas", 0)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("metadata.desiredReplicas is required and non-zero")
	}
	// KEDA's parseCronTimeFormat rewrites start and end, not the timezone.
	clean := strings.NewReplacer(" ", "", "*", "x", "/", "Sl", "?", "Qm")
	name := "cron-" + md["timezone"] + "-" + clean.Replace(md["start"]) + "-" + clean.Replace(md["end"])
	reason := fmt.Sprintf("cron trigger: a schedule (a floor of %d replicas from %q to %q), not a load signal", n, md["start"], md["end"])
	if err := external(name, 1000, inventory.SignalUnknown, reason); err != nil {
		return err
	}
	if r.metric.TargetType == autoscalingv2.ValueMetricType {
		r.notes = append(r.notes, triggerNote{check.KEDAValueMetricType, check.SeverityWarning, "drop metricType: Value on cron triggers",
			"metricType Value on a cron trigger multiplies desiredReplicas by the current replica count"})
	}
	return nil
}

// thresholdKeys are metadata keys that, for scalers capreport does not
// model, usually hold the per-replica target; the first present one is
// taken as the target so the HPA spec is complete, flagged as a guess.
var thresholdKeys = []string{"targetMetricValue", "threshold", "targetValue", "value", "queueLength",
	"lagThreshold", "targetQueueLength", "targetPendingMessages", "listLength", "messageCount", "targetPipelinesQueueLength"}

func unknownTrigger(t Trigger, r *triggerResult, external func(string, int64, Signal, string) error) error {
	reason := fmt.Sprintf("trigger type %q is not one capreport models; set capreport.io/signal", t.Type)
	milli := int64(0)
	known := false
	for _, k := range thresholdKeys {
		if v, ok := t.Metadata[k]; ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f > 0 {
				milli, known = int64(f*1000), true
				reason += fmt.Sprintf("; target taken from metadata.%s", k)
				break
			}
		}
	}
	if t.Type == "" {
		return fmt.Errorf("type is required")
	}
	if err := external(t.Type, milli, inventory.SignalUnknown, reason); err != nil {
		return err
	}
	r.metric.TargetKnown = known
	if !known {
		r.metric.TargetMilli = 0
	}
	r.notes = append(r.notes, triggerNote{check.KEDAUnknownTrigger, check.SeverityInfo, "annotate the ScaledObject with capreport.io/signal",
		fmt.Sprintf("trigger type %q is passed through as an External metric of unknown signal", t.Type)})
	return nil
}

func intParam(md map[string]string, key string, def int64) (int64, error) {
	v, ok := md[key]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("metadata.%s %q is not an integer", key, v)
	}
	if n > 1<<40 || n < -(1<<40) {
		return 0, fmt.Errorf("metadata.%s %q is out of range", key, v)
	}
	return n, nil
}

func floatParam(md map[string]string, key string, def float64) (float64, error) {
	v, ok := md[key]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f != f || f > 1e12 || f < -1e12 {
		return 0, fmt.Errorf("metadata.%s %q is not a number", key, v)
	}
	return f, nil
}

// sqsQueueName is the third path segment of queueURL, as KEDA takes it,
// or the raw value when the URL has no such segment.
func sqsQueueName(md map[string]string) string {
	raw := md["queueURL"]
	if u, err := url.Parse(raw); err == nil {
		if parts := strings.Split(u.Path, "/"); len(parts) > 2 && parts[2] != "" {
			return parts[2]
		}
	}
	if raw == "" {
		return md["queueName"]
	}
	return raw
}
