package analyze

import (
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
)

// Every check Extract raises has an input built to raise it and a quiet
// twin, the nearest valid input, that must not. The expected severity is
// the check's default in rules/checks_registry.go (analyze cannot import
// rules).

const checksFile = "checks.yaml"

// stream joins documents into one multi-document YAML stream.
func stream(docs ...string) string { return strings.Join(docs, "---\n") }

// annotationBlock renders "key: value" lines as metadata.annotations.
func annotationBlock(ann []string) string {
	if len(ann) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("  annotations:\n")
	for _, a := range ann {
		b.WriteString("    " + a + "\n")
	}
	return b.String()
}

// deployment is the target web/shop; resources is its container's
// resources block (flow style).
func deployment(resources string, ann ...string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n" + annotationBlock(ann) +
		"spec:\n  template:\n    spec:\n      containers:\n        - name: app\n          resources: " + resources + "\n"
}

const (
	requests    = "{requests: {cpu: 100m, memory: 64Mi}}"
	cpu70       = "  metrics:\n    - type: Resource\n      resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}\n"
	hpaReplicas = "  minReplicas: 1\n  maxReplicas: 10\n"
)

// hpa is an autoscaling/v2 HPA on web/shop; body follows scaleTargetRef.
func hpa(body string, ann ...string) string {
	return "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  namespace: shop\n" + annotationBlock(ann) +
		"spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n" + body
}

// soDoc is a ScaledObject web/shop; spec is its whole spec body.
func soDoc(apiVersion, spec string, ann ...string) string {
	return "apiVersion: " + apiVersion + "\nkind: ScaledObject\nmetadata:\n  name: web\n  namespace: shop\n" + annotationBlock(ann) +
		"spec:\n" + spec
}

// kedaSpec is a ScaledObject spec on web with the given bounds and triggers.
func kedaSpec(bounds, triggers string) string {
	return "  scaleTargetRef: {name: web}\n" + bounds + "  triggers:\n" + triggers
}

const (
	kedaBounds    = "  minReplicaCount: 1\n  maxReplicaCount: 10\n"
	kafkaTrigger  = "    - type: kafka\n      metadata: {bootstrapServers: kafka:9092, consumerGroup: g, topic: orders, lagThreshold: \"10\"}\n"
	sqsTrigger    = "    - type: aws-sqs-queue\n      metadata: {queueURL: \"https://sqs.eu-west-1.amazonaws.com/1/orders\", queueLength: \"5\"}\n"
	promRate      = "    - type: prometheus\n      metadata: {serverAddress: \"http://prom:9090\", query: \"sum(rate(http_requests_total[2m]))\", threshold: \"100\"}\n"
	cronMetadata  = "      metadata: {timezone: Europe/Paris, start: \"0 8 * * *\", end: \"0 20 * * *\", desiredReplicas: \"4\"}\n"
	cpuTriggerNew = "    - type: cpu\n      metricType: Utilization\n      metadata: {value: \"70\"}\n"
)

// docLine is the 1-based line of the first key of document i (0-based) of
// a stream built by stream.
func docLine(t *testing.T, s string, i int) int {
	t.Helper()
	if i == 0 {
		return 1
	}
	n := 0
	for l, text := range strings.Split(s, "\n") {
		if text == "---" {
			n++
			if n == i {
				return l + 2
			}
		}
	}
	t.Fatalf("stream has no document %d", i)
	return 0
}

type analyzeCheckCase struct {
	name     string
	check    string
	severity string // registry default
	trigger  string // YAML stream
	quiet    string // the valid twin
	doc      int    // the document the finding points at
	text     string // a substring of the message
}

// allFindings gathers the inventory's findings and every autoscaler's.
func allFindings(inv *Inventory) []check.Finding {
	fs := append([]check.Finding(nil), inv.Findings...)
	for _, a := range inv.Autoscalers {
		fs = append(fs, a.Findings...)
	}
	return fs
}

func extractStream(t *testing.T, s string) []check.Finding {
	t.Helper()
	objs, err := decodeObjects(checksFile, []byte(s))
	if err != nil {
		t.Fatalf("decoding:\n%s\n%v", s, err)
	}
	return allFindings(Extract(objs, nil))
}

func (c analyzeCheckCase) run(t *testing.T) {
	fs := extractStream(t, c.trigger)
	var got *check.Finding
	for i := range fs {
		if fs[i].Check == c.check {
			got = &fs[i]
			break
		}
	}
	if got == nil {
		t.Fatalf("trigger: no %s finding; findings:%s", c.check, findingList(fs))
	}
	if got.Severity != c.severity {
		t.Errorf("trigger: %s severity %q, want %q (the default in rules/checks_registry.go)", c.check, got.Severity, c.severity)
	}
	if line := docLine(t, c.trigger, c.doc); got.File() != checksFile || got.Line() != line {
		t.Errorf("trigger: %s at %s:%d, want %s:%d", c.check, got.File(), got.Line(), checksFile, line)
	}
	if !strings.Contains(got.Message, c.text) {
		t.Errorf("trigger: %s message %q does not mention %q", c.check, got.Message, c.text)
	}

	// The quiet twin is valid: no finding of this check, no error at all.
	for _, f := range extractStream(t, c.quiet) {
		if f.Check == c.check || f.Severity == check.SeverityError {
			t.Errorf("quiet twin: unexpected %s finding at %s:%d: %s", f.Check, f.File(), f.Line(), f.Message)
		}
	}
}

func TestExtractChecks(t *testing.T) {
	dep := deployment(requests)
	cases := []analyzeCheckCase{
		{
			name: "unknown-annotation/autoscaler", check: check.UnknownAnnotation, severity: check.SeverityWarning,
			trigger: stream(hpa(hpaReplicas+cpu70, "capreport.io/dead-tme: 60s"), dep),
			quiet:   stream(hpa(hpaReplicas+cpu70, "capreport.io/dead-time: 60s"), dep),
			doc:     0, text: "capreport.io/dead-tme",
		},
		{
			name: "unknown-annotation/target", check: check.UnknownAnnotation, severity: check.SeverityWarning,
			trigger: stream(hpa(hpaReplicas+cpu70), deployment(requests, "capreport.io/pod-rates: \"50\"")),
			quiet:   stream(hpa(hpaReplicas+cpu70), deployment(requests, "capreport.io/pod-rate: \"50\"")),
			doc:     1, text: "capreport.io/pod-rates",
		},
		{
			name: "invalid-annotation/assumption", check: check.InvalidAnnotation, severity: check.SeverityError,
			trigger: stream(hpa(hpaReplicas+cpu70, "capreport.io/dead-time: soon"), dep),
			quiet:   stream(hpa(hpaReplicas+cpu70, "capreport.io/dead-time: 90s"), dep),
			doc:     0, text: "capreport.io/dead-time",
		},
		{
			name: "invalid-annotation/partitions", check: check.InvalidAnnotation, severity: check.SeverityError,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, kafkaTrigger), "capreport.io/partitions: many"), dep),
			quiet:   stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, kafkaTrigger), "capreport.io/partitions: \"12\""), dep),
			doc:     0, text: "partition count",
		},
		{
			name: "ignore-without-reason/no-reason", check: check.IgnoreWithoutReason, severity: check.SeverityError,
			trigger: stream(hpa(hpaReplicas+cpu70, "ignore-check.capreport.io/assumption-default: \"\""), dep),
			quiet:   stream(hpa(hpaReplicas+cpu70, "ignore-check.capreport.io/assumption-default: \"batch job, no latency target\""), dep),
			doc:     0, text: "no reason",
		},
		{
			name: "ignore-without-reason/no-check", check: check.IgnoreWithoutReason, severity: check.SeverityError,
			trigger: stream(hpa(hpaReplicas+cpu70), deployment(requests, "ignore-check.capreport.io/: \"batch job\"")),
			quiet:   stream(hpa(hpaReplicas+cpu70), deployment(requests, "ignore-check.capreport.io/dead-band: \"batch job\"")),
			doc:     1, text: "names no check",
		},
		{
			name: "invalid-autoscaler/hpa-bounds", check: check.InvalidAutoscaler, severity: check.SeverityError,
			trigger: stream(hpa("  minReplicas: 1\n  maxReplicas: 0\n"+cpu70), dep),
			quiet:   stream(hpa("  minReplicas: 1\n  maxReplicas: 1\n"+cpu70), dep),
			doc:     0, text: "maxReplicas 0",
		},
		{
			name: "invalid-autoscaler/hpa-decode", check: check.InvalidAutoscaler, severity: check.SeverityError,
			trigger: stream(dep, hpa("  minReplicas: 1\n  maxReplicas: ten\n"+cpu70)),
			quiet:   stream(dep, hpa("  minReplicas: 1\n  maxReplicas: 10\n"+cpu70)),
			doc:     1, text: "does not decode",
		},
		{
			name: "invalid-autoscaler/scaledobject-bounds", check: check.InvalidAutoscaler, severity: check.SeverityError,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec("  minReplicaCount: 5\n  maxReplicaCount: 2\n", sqsTrigger)), dep),
			quiet:   stream(soDoc("keda.sh/v1alpha1", kedaSpec("  minReplicaCount: 2\n  maxReplicaCount: 5\n", sqsTrigger)), dep),
			doc:     0, text: "minReplicaCount 5 exceeds maxReplicaCount 2",
		},
		{
			name: "keda-v1-schema/api-group", check: check.KEDAV1Schema, severity: check.SeverityError,
			trigger: stream(dep, soDoc("keda.k8s.io/v1alpha1", "  scaleTargetRef: {deploymentName: web}\n  triggers:\n"+sqsTrigger)),
			quiet:   stream(dep, soDoc("keda.sh/v1alpha1", "  scaleTargetRef: {name: web}\n  triggers:\n"+sqsTrigger)),
			doc:     1, text: "keda.k8s.io/v1alpha1",
		},
		{
			// KEDA v1 named the target in spec.scaleTargetRef.deploymentName
			// (as the keda.k8s.io fixture and this check's remediation say);
			// an object moved to keda.sh without renaming the field is v1.
			name: "keda-v1-schema/deploymentName", check: check.KEDAV1Schema, severity: check.SeverityError,
			trigger: stream(soDoc("keda.sh/v1alpha1", "  scaleTargetRef: {deploymentName: web}\n"+kedaBounds+"  triggers:\n"+sqsTrigger), dep),
			quiet:   stream(soDoc("keda.sh/v1alpha1", "  scaleTargetRef: {name: web}\n"+kedaBounds+"  triggers:\n"+sqsTrigger), dep),
			doc:     0, text: "deploymentName",
		},
		{
			name: "keda-paused", check: check.KEDAPaused, severity: check.SeverityWarning,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, sqsTrigger), "autoscaling.keda.sh/paused: \"true\""), dep),
			quiet:   stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, sqsTrigger), "autoscaling.keda.sh/paused: \"false\""), dep),
			doc:     0, text: "paused",
		},
		{
			name: "keda-invalid-trigger/missing-parameter", check: check.KEDAInvalidTrigger, severity: check.SeverityError,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds,
				"    - type: prometheus\n      metadata: {serverAddress: \"http://prom:9090\", query: \"sum(rate(http_requests_total[2m]))\"}\n")), dep),
			quiet: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, promRate)), dep),
			doc:   0, text: "metadata.threshold is required",
		},
		{
			name: "keda-invalid-trigger/duplicate-name", check: check.KEDAInvalidTrigger, severity: check.SeverityError,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds,
				"    - type: kafka\n      name: q\n"+kafkaTrigger[len("    - type: kafka\n"):]+"    - type: aws-sqs-queue\n      name: q\n"+sqsTrigger[len("    - type: aws-sqs-queue\n"):])), dep),
			quiet: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds,
				"    - type: kafka\n      name: q1\n"+kafkaTrigger[len("    - type: kafka\n"):]+"    - type: aws-sqs-queue\n      name: q2\n"+sqsTrigger[len("    - type: aws-sqs-queue\n"):])), dep),
			doc: 0, text: `share the name "q"`,
		},
		{
			name: "keda-unknown-trigger", check: check.KEDAUnknownTrigger, severity: check.SeverityInfo,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds,
				"    - type: new-relic\n      metadata: {account: \"1\", nrql: \"SELECT rate(count(*), 1 second) FROM Tx\", threshold: \"100\"}\n"), "capreport.io/signal: rate"), dep),
			quiet: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, promRate), "capreport.io/signal: rate"), dep),
			doc:   0, text: `"new-relic"`,
		},
		{
			name: "keda-deprecated-field", check: check.KEDADeprecated, severity: check.SeverityWarning,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, "    - type: cpu\n      metadata: {type: Utilization, value: \"70\"}\n")), dep),
			quiet:   stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, cpuTriggerNew)), dep),
			doc:     0, text: "metadata.type is deprecated",
		},
		{
			name: "keda-idle-replicas", check: check.KEDAIdleReplicas, severity: check.SeverityWarning,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec("  idleReplicaCount: 1\n  minReplicaCount: 2\n  maxReplicaCount: 10\n", sqsTrigger)), dep),
			quiet:   stream(soDoc("keda.sh/v1alpha1", kedaSpec("  idleReplicaCount: 0\n  minReplicaCount: 2\n  maxReplicaCount: 10\n", sqsTrigger)), dep),
			doc:     0, text: "idleReplicaCount 1",
		},
		{
			name: "keda-value-metric-type/backlog", check: check.KEDAValueMetricType, severity: check.SeverityWarning,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, "    - type: kafka\n      metricType: Value\n"+kafkaTrigger[len("    - type: kafka\n"):])), dep),
			quiet:   stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, "    - type: kafka\n      metricType: AverageValue\n"+kafkaTrigger[len("    - type: kafka\n"):])), dep),
			doc:     0, text: "metricType Value on a backlog trigger",
		},
		{
			// Value on a rate trigger is a plain target; only backlogs are flagged.
			name: "keda-value-metric-type/backlog-not-rate", check: check.KEDAValueMetricType, severity: check.SeverityWarning,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, "    - type: redis\n      metricType: Value\n      metadata: {listName: jobs}\n")), dep),
			quiet:   stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, "    - type: prometheus\n      metricType: Value\n"+promRate[len("    - type: prometheus\n"):])), dep),
			doc:     0, text: "multiplies the desired replicas",
		},
		{
			name: "keda-value-metric-type/cron", check: check.KEDAValueMetricType, severity: check.SeverityWarning,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, "    - type: cron\n      metricType: Value\n"+cronMetadata)), dep),
			quiet:   stream(soDoc("keda.sh/v1alpha1", kedaSpec(kedaBounds, "    - type: cron\n"+cronMetadata)), dep),
			doc:     0, text: "cron trigger",
		},
		{
			name: "kafka-max-above-partitions", check: check.KafkaPartitions, severity: check.SeverityWarning,
			trigger: stream(soDoc("keda.sh/v1alpha1", kedaSpec("  minReplicaCount: 1\n  maxReplicaCount: 10\n", kafkaTrigger), "capreport.io/partitions: \"4\""), dep),
			quiet:   stream(soDoc("keda.sh/v1alpha1", kedaSpec("  minReplicaCount: 1\n  maxReplicaCount: 4\n", kafkaTrigger), "capreport.io/partitions: \"4\""), dep),
			doc:     0, text: "maxReplicaCount 10 exceeds the topic's 4 partitions",
		},
		{
			name: "signal-unknown", check: check.SignalUnknown, severity: check.SeverityInfo,
			trigger: stream(hpa(hpaReplicas+"  metrics:\n    - type: Pods\n      pods: {metric: {name: widgets}, target: {type: AverageValue, averageValue: \"10\"}}\n"), dep),
			quiet: stream(hpa(hpaReplicas+"  metrics:\n    - type: Pods\n      pods: {metric: {name: widgets}, target: {type: AverageValue, averageValue: \"10\"}}\n",
				"capreport.io/signal: backlog"), dep),
			doc: 0, text: `"widgets"`,
		},
		{
			name: "missing-request", check: check.MissingRequest, severity: check.SeverityError,
			trigger: stream(hpa(hpaReplicas+cpu70), deployment("{requests: {memory: 64Mi}}")),
			quiet:   stream(hpa(hpaReplicas+cpu70), deployment("{requests: {cpu: 100m}}")),
			doc:     1, text: "container(s) app",
		},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.check] = true
		t.Run(c.name, c.run)
	}
	for _, id := range []string{check.UnknownAnnotation, check.InvalidAnnotation, check.IgnoreWithoutReason, check.InvalidAutoscaler,
		check.KEDAV1Schema, check.KEDAPaused, check.KEDAInvalidTrigger, check.KEDAUnknownTrigger, check.KEDADeprecated,
		check.KEDAIdleReplicas, check.KEDAValueMetricType, check.KafkaPartitions, check.SignalUnknown, check.MissingRequest} {
		if !seen[id] {
			t.Errorf("check %s has no case", id)
		}
	}
}
