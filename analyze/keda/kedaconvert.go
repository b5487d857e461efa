package keda

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"

	"github.com/capreport/capreport/analyze/inventory"
	"github.com/capreport/capreport/check"
)

// translateKEDATrigger is translateTrigger on the metadata as KEDA's
// scaler resolves it (kedaScalerParse), with the two metric details that
// KEDA's scalers settle differently from the metadata alone: the SQS queue
// name (only a /<account>/<queue> path of a request URI names one) and
// aws-cloudwatch's target (targetMetricValue, whatever its sign).
func translateKEDATrigger(t Trigger) (triggerResult, error) {
	md, refusal := kedaScalerParse(t)
	if refusal != "" {
		return triggerResult{}, errors.New(refusal)
	}
	resolved := t
	resolved.Metadata = md
	key, n, standIn := nonPositiveThreshold(t, md)
	if standIn {
		// translateTrigger refuses a threshold of 0 or below, which KEDA's
		// scaler takes: it is the API server that refuses it, in the HPA's
		// final metrics (apiServerChecks), where a composite metric may
		// have replaced it. So it gets a positive stand-in, and the
		// threshold is put back after.
		resolved.Metadata = maps.Clone(md)
		resolved.Metadata[key] = "1"
	}
	tr, err := translateTrigger(resolved)
	if err != nil {
		return tr, err
	}
	if standIn {
		if err := restoreThreshold(t.MetricType, n, &tr); err != nil {
			return tr, err
		}
	}
	switch t.Type {
	case "cpu", "memory":
		if legacy := md["type"]; legacy != "" && t.MetricType != "" {
			tr.notes = append(tr.notes, triggerNote{check.KEDADeprecated, check.SeverityWarning, "remove metadata.type",
				"metadata.type is deprecated and rejected from KEDA v2.18; metricType " + t.MetricType + " is read instead"})
		}
	case "aws-sqs-queue":
		tr.name = "aws-sqs-" + kedaSQSQueueName(md)
	case "aws-cloudwatch":
		f := floatOrZero(md["targetMetricValue"])
		mt, err := kedaTarget(t.MetricType, int64(f*1000))
		if err != nil {
			return tr, err
		}
		tr.spec.External.Target = mt
		sig, reason := tr.metric.Signal, tr.metric.Reason
		tr.metric = inventory.MetricFor(autoscalingv2.ExternalMetricSourceType, "", "", mt)
		tr.metric.Signal, tr.metric.Reason = sig, reason
	}
	return tr, nil
}

// kedaThresholds are the integer thresholds translateTrigger requires to
// be positive, by trigger type; cpu and memory only as a Utilization.
var kedaThresholds = map[string]string{"aws-sqs-queue": "queueLength", "azure-servicebus": "messageCount",
	"redis": "listLength", "nats-jetstream": "lagThreshold", "cpu": "value", "memory": "value"}

// nonPositiveThreshold finds a threshold of 0 or below that KEDA's scaler
// accepts and translateTrigger would refuse.
func nonPositiveThreshold(t Trigger, md map[string]string) (key string, n int64, ok bool) {
	key, known := kedaThresholds[t.Type]
	if !known {
		return "", 0, false
	}
	if (t.Type == "cpu" || t.Type == "memory") && t.MetricType != string(autoscalingv2.UtilizationMetricType) {
		return "", 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(md[key]), 10, 32)
	if err != nil || n > 0 {
		return "", 0, false
	}
	return key, n, true
}

// restoreThreshold puts a threshold of 0 or below back into a translated
// trigger's target, as KEDA's scaler builds it.
func restoreThreshold(metricType string, n int64, tr *triggerResult) error {
	switch {
	case tr.spec.External != nil:
		mt, err := kedaTarget(metricType, n*1000)
		if err != nil {
			return err
		}
		tr.spec.External.Target = mt
		sig, reason := tr.metric.Signal, tr.metric.Reason
		tr.metric = inventory.MetricFor(autoscalingv2.ExternalMetricSourceType, "", "", mt)
		tr.metric.Signal, tr.metric.Reason = sig, reason
	case tr.spec.Resource != nil:
		tr.spec.Resource.Target.AverageUtilization = ptr.To(int32(n))
		tr.metric.Utilization, tr.metric.Target = int32(n), fmt.Sprintf("%d%%", n)
	case tr.spec.ContainerResource != nil:
		tr.spec.ContainerResource.Target.AverageUtilization = ptr.To(int32(n))
		tr.metric.Utilization, tr.metric.Target = int32(n), fmt.Sprintf("%d%%", n)
	}
	return nil
}

// fallback is KEDA's CheckFallbackValid, which its webhook applies: both
// numbers at least 0, and (without scalingModifiers) a trigger other than
// cpu and memory for the fallback to replace.
func (t *soTranslation) fallback(s scaledObjectSpec) {
	fb := s.Fallback
	if fb == nil {
		return
	}
	if fb.FailureThreshold < 0 || fb.Replicas < 0 {
		t.fail(check.InvalidAutoscaler, "set fallback.failureThreshold and fallback.replicas to 0 or more",
			"ScaledObject %s: fallback.failureThreshold %d and fallback.replicas %d must both be at least 0; KEDA's webhook rejects it", t.name, fb.FailureThreshold, fb.Replicas)
		return
	}
	modifiers := s.Advanced != nil && s.Advanced.ScalingModifiers != nil && *s.Advanced.ScalingModifiers != (kedaScalingModifiers{})
	if !modifiers && (len(s.Triggers) == 0 || onlyResourceTriggers(s.Triggers)) {
		t.fail(check.InvalidAutoscaler, "remove fallback, or add a trigger other than cpu and memory",
			"ScaledObject %s: fallback needs a trigger other than cpu and memory; KEDA's webhook rejects it", t.name)
	}
}

// apiServerChecks refuses an HPA that the API server would reject, so
// that KEDA's Create of it fails: maxReplicas below 1 or below
// minReplicas (bounds KEDA's own check lets through when
// minReplicaCount is unset and maxReplicaCount is 0), or a metric target
// that is not positive (a Value or AverageValue of 0 or less), which
// KEDA's scalers pass through from a threshold of 0 or below. A target
// capreport could not tell (an unmodelled trigger without a threshold it
// recognizes) is not checked.
func (t *soTranslation) apiServerChecks() {
	if t.spec.MaxReplicas < 1 || *t.spec.MinReplicas > t.spec.MaxReplicas {
		t.fail(check.InvalidAutoscaler, "set maxReplicaCount to 1 or more, and at least minReplicaCount",
			"ScaledObject %s: the HPA KEDA creates would have minReplicas %d and maxReplicas %d, which the API server rejects", t.name, *t.spec.MinReplicas, t.spec.MaxReplicas)
	}
	for i, ms := range t.spec.Metrics {
		var target autoscalingv2.MetricTarget
		switch {
		case ms.External != nil:
			target = ms.External.Target
		case ms.Resource != nil:
			target = ms.Resource.Target
		case ms.ContainerResource != nil:
			target = ms.ContainerResource.Target
		}
		if !t.metrics[i].TargetKnown {
			continue
		}
		if u := target.AverageUtilization; target.Type == autoscalingv2.UtilizationMetricType && u != nil && *u <= 0 {
			t.fail(check.InvalidAutoscaler, "set the trigger's value above 0",
				"ScaledObject %s: metric %d's target utilization %d%% is not positive; the API server rejects the HPA KEDA creates", t.name, i, *u)
		}
		q := target.AverageValue
		if target.Type == autoscalingv2.ValueMetricType {
			q = target.Value
		}
		if q != nil && q.Sign() <= 0 {
			t.fail(check.InvalidAutoscaler, "set the trigger's threshold above 0",
				"ScaledObject %s: metric %d's target %s is not positive; the API server rejects the HPA KEDA creates", t.name, i, q.String())
		}
	}
}

// formulaNames are the trigger names a scalingModifiers formula may use:
// those of triggers other than cpu and memory.
func formulaNames(triggers []scaledObjectTrigger) map[string]bool {
	names := map[string]bool{}
	for _, tr := range triggers {
		if tr.Name != "" && tr.Type != "cpu" && tr.Type != "memory" {
			names[tr.Name] = true
		}
	}
	return names
}

// formulaWord finds a formula's identifiers; formulaWords are those of
// expr-lang's language and builtins that a formula may use besides
// trigger names.
var (
	formulaWord  = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*`)
	formulaWords = map[string]bool{"float": true, "int": true, "abs": true, "ceil": true, "floor": true, "round": true,
		"max": true, "min": true, "true": true, "false": true, "nil": true, "and": true, "or": true, "not": true, "in": true}
)

// kedaFormulaProblem approximates KEDA's check of a formula, which
// compiles it with expr-lang over the trigger names and runs it once:
// capreport checks that every identifier is a trigger name or one of
// expr's words, that parentheses balance and that the formula does not
// end in an operator. A formula expr rejects for another reason (a type,
// an unknown function call) passes this check.
func kedaFormulaProblem(formula string, names map[string]bool) string {
	for _, w := range formulaWord.FindAllString(formula, -1) {
		if !names[w] && !formulaWords[w] {
			return fmt.Sprintf("%q is not the name of a trigger (cpu and memory triggers excluded)", w)
		}
	}
	depth := 0
	for _, r := range formula {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth < 0 {
			break
		}
	}
	if depth != 0 {
		return "unbalanced parentheses"
	}
	if trimmed := strings.TrimSpace(formula); trimmed == "" || strings.ContainsAny(trimmed[len(trimmed)-1:], "+-*/%?:<>=!&|^") {
		return "the formula is incomplete"
	}
	return ""
}

// cachedMetrics refuses useCachedMetrics on the triggers KEDA's
// ValidateTriggers does not allow it on: cpu, memory and cron.
func (t *soTranslation) cachedMetrics(i int, st scaledObjectTrigger) {
	if st.UseCachedMetrics && (st.Type == "cpu" || st.Type == "memory" || st.Type == "cron") {
		t.fail(check.KEDAInvalidTrigger, "remove useCachedMetrics from the trigger",
			"ScaledObject %s: trigger %d (%s): useCachedMetrics is not supported on %s triggers; KEDA rejects it", t.name, i, st.Type, st.Type)
	}
}
