package analyze

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// want is what one autoscaler of a fixture must look like; zero fields are
// not checked.
type want struct {
	id         string
	hpaName    string
	min, max   int32
	metrics    []string // Metric.Short(), in HPA order
	signal     Signal
	target     string // Kind/name
	found      *bool
	cpuMilli   int64
	memBytes   int64
	replicas   *int32
	unpriced   string   // substring; "-" means must be priced
	findings   []string // "check" or "check: substring"
	noFindings []string // checks that must not appear
}

// extractCase is one fixture with its expected autoscalers.
type extractCase struct {
	name    string
	fixture string
	cfg     *config.Config
	want    []want
	skipped []string // Kind/name
	global  []string // inventory-level findings, "check: substring"
}

func (c extractCase) run(t *testing.T) {
	t.Helper()
	inv := Extract(loadObjects(t, c.fixture), c.cfg)
	if len(inv.Autoscalers) != len(c.want) {
		var ids []string
		for _, a := range inv.Autoscalers {
			ids = append(ids, a.ID)
		}
		t.Fatalf("got %d autoscalers %v, want %d", len(ids), ids, len(c.want))
	}
	for _, w := range c.want {
		a := findAutoscaler(inv, w.id)
		if a == nil {
			t.Errorf("%s: not extracted", w.id)
			continue
		}
		w.check(t, a)
	}
	var skipped []string
	for _, s := range inv.Skipped {
		skipped = append(skipped, s.Kind+"/"+s.Name)
		if s.Reason == "" {
			t.Errorf("skipped %s/%s without a reason", s.Kind, s.Name)
		}
	}
	if len(skipped) != 0 || len(c.skipped) != 0 {
		if !reflect.DeepEqual(skipped, c.skipped) {
			t.Errorf("skipped = %v, want %v", skipped, c.skipped)
		}
	}
	for _, f := range c.global {
		if !hasFinding(inv.Findings, f) {
			t.Errorf("inventory findings lack %q: %+v", f, inv.Findings)
		}
	}
}

func (w want) check(t *testing.T, a *Autoscaler) {
	t.Helper()
	if w.hpaName != "" && a.HPAName != w.hpaName {
		t.Errorf("%s: hpaName %q, want %q", w.id, a.HPAName, w.hpaName)
	}
	if w.max != 0 && (a.HPA.MinReplicas == nil || *a.HPA.MinReplicas != w.min || a.HPA.MaxReplicas != w.max) {
		t.Errorf("%s: min/max %v/%d, want %d/%d", w.id, deref(a.HPA.MinReplicas), a.HPA.MaxReplicas, w.min, w.max)
	}
	if w.metrics != nil {
		var got []string
		for _, m := range a.Metrics {
			got = append(got, m.Short())
		}
		if !reflect.DeepEqual(got, w.metrics) {
			t.Errorf("%s: metrics %q, want %q", w.id, got, w.metrics)
		}
	}
	if len(a.Metrics) != len(a.HPA.Metrics) {
		t.Errorf("%s: %d metric descriptions for %d HPA metrics", w.id, len(a.Metrics), len(a.HPA.Metrics))
	}
	if w.signal != "" && a.Signal != w.signal {
		t.Errorf("%s: signal %q, want %q", w.id, a.Signal, w.signal)
	}
	if w.target != "" && a.Target.Kind+"/"+a.Target.Name != w.target {
		t.Errorf("%s: target %s/%s, want %s", w.id, a.Target.Kind, a.Target.Name, w.target)
	}
	if w.found != nil && a.Target.Found != *w.found {
		t.Errorf("%s: target found %v, want %v", w.id, a.Target.Found, *w.found)
	}
	if w.cpuMilli != 0 && a.Target.CPURequestMilli != w.cpuMilli {
		t.Errorf("%s: cpu request %dm, want %dm", w.id, a.Target.CPURequestMilli, w.cpuMilli)
	}
	if w.memBytes != 0 && a.Target.MemoryRequestBytes != w.memBytes {
		t.Errorf("%s: memory request %d, want %d", w.id, a.Target.MemoryRequestBytes, w.memBytes)
	}
	if w.replicas != nil && (a.Target.Replicas == nil || *a.Target.Replicas != *w.replicas) {
		t.Errorf("%s: replicas %v, want %d", w.id, deref(a.Target.Replicas), *w.replicas)
	}
	switch {
	case w.unpriced == "-" && a.Unpriced != "":
		t.Errorf("%s: unpriced %q, want priced", w.id, a.Unpriced)
	case w.unpriced != "" && w.unpriced != "-" && !strings.Contains(a.Unpriced, w.unpriced):
		t.Errorf("%s: unpriced %q, want it to mention %q", w.id, a.Unpriced, w.unpriced)
	}
	for _, f := range w.findings {
		if !hasFinding(a.Findings, f) {
			t.Errorf("%s: no finding %q among %s", w.id, f, findingList(a.Findings))
		}
	}
	for _, c := range w.noFindings {
		for _, f := range a.Findings {
			if f.Check == c {
				t.Errorf("%s: unexpected finding %s: %s", w.id, f.Check, f.Message)
			}
		}
	}
	for _, f := range a.Findings {
		if f.File() == "" || f.Severity == "" || f.Message == "" {
			t.Errorf("%s: finding without place, severity or message: %+v", w.id, f)
		}
	}
}

func findAutoscaler(inv *Inventory, id string) *Autoscaler {
	for i := range inv.Autoscalers {
		if inv.Autoscalers[i].ID == id {
			return &inv.Autoscalers[i]
		}
	}
	return nil
}

// hasFinding matches "check" or "check: message substring".
func hasFinding(fs []check.Finding, spec string) bool {
	check, sub, _ := strings.Cut(spec, ": ")
	for _, f := range fs {
		if f.Check == check && strings.Contains(f.Message, sub) {
			return true
		}
	}
	return false
}

func findingList(fs []check.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n\t" + f.Check + ": " + f.Message)
	}
	return b.String()
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

var (
	yes = ptrTo(true)
	no  = ptrTo(false)
)

func TestExtractHPAVersions(t *testing.T) {
	extractCase{
		name:    "hpa-versions",
		fixture: "hpa-versions.yaml",
		want: []want{
			// v1: targetCPUUtilizationPercentage becomes a Resource metric;
			// the sidecar's request counts, the plain init container's not.
			{id: "shop/HorizontalPodAutoscaler/web-v1", min: 2, max: 10, metrics: []string{"cpu:70%"},
				signal: SignalSaturating, target: "Deployment/web-v1", found: yes,
				cpuMilli: 300, memBytes: 320 << 20, replicas: ptrTo[int32](3), unpriced: "-"},
			// v2beta1: every metric type converted; the custom metrics are
			// classified by name (per_second → rate, queue → backlog), and
			// the unknown Object metric leaves the overall signal backlog.
			{id: "shop/HorizontalPodAutoscaler/web-v2beta1", min: 1, max: 6,
				metrics: []string{"cpu:60%", "memory:200Mi", "Pods:http_requests_per_second", "External:sqs_queue_depth", "Object:latency_seconds"},
				signal:  SignalBacklog, unpriced: "-"},
			{id: "shop/HorizontalPodAutoscaler/web-v2beta2", min: 3, max: 12, metrics: []string{"cpu:75%"}, signal: SignalSaturating},
			{id: "shop/HorizontalPodAutoscaler/web-v1-annotated", min: 1, max: 5, metrics: []string{"Pods:queue_length", "cpu:50%"},
				signal: SignalBacklog},
			// v2 without minReplicas or metrics: API defaults.
			{id: "shop/HorizontalPodAutoscaler/web-v2", min: 1, max: 4, metrics: []string{"cpu:80%"}, signal: SignalSaturating},
		},
	}.run(t)

	// Details the table does not cover.
	inv := Extract(loadObjects(t, "hpa-versions.yaml"), nil)
	b2 := findAutoscaler(inv, "shop/HorizontalPodAutoscaler/web-v2beta2")
	if b2.HPA.Behavior == nil || b2.HPA.Behavior.ScaleDown == nil || *b2.HPA.Behavior.ScaleDown.StabilizationWindowSeconds != 120 {
		t.Errorf("v2beta2 behavior not kept: %+v", b2.HPA.Behavior)
	}
	if b2.HPA.Behavior.ScaleUp != nil {
		t.Errorf("behavior defaults must not be filled here: %+v", b2.HPA.Behavior.ScaleUp)
	}
	if an := findAutoscaler(inv, "shop/HorizontalPodAutoscaler/web-v1-annotated"); an.HPA.Behavior == nil ||
		*an.HPA.Behavior.ScaleDown.StabilizationWindowSeconds != 60 {
		t.Errorf("v1 behavior annotation not read: %+v", an.HPA.Behavior)
	}
	if v2 := findAutoscaler(inv, "shop/HorizontalPodAutoscaler/web-v2"); v2.HPA.Behavior != nil {
		t.Errorf("behavior must stay nil when unset")
	}
	b1 := findAutoscaler(inv, "shop/HorizontalPodAutoscaler/web-v2beta1")
	ext := b1.HPA.Metrics[3].External
	if ext == nil || ext.Target.Type != autoscalingv2.ValueMetricType || ext.Target.Value.String() != "30" ||
		ext.Metric.Selector == nil || ext.Metric.Selector.MatchLabels["queue"] != "orders" {
		t.Errorf("v2beta1 external metric: %+v", ext)
	}
	obj := b1.HPA.Metrics[4].Object
	if obj == nil || obj.DescribedObject.Kind != "Ingress" || obj.Target.Type != autoscalingv2.ValueMetricType || obj.Target.Value.MilliValue() != 500 {
		t.Errorf("v2beta1 object metric: %+v", obj)
	}
	if b1.Metrics[2].Signal != SignalRate || b1.Metrics[3].Signal != SignalBacklog || b1.Metrics[4].Signal != SignalUnknown {
		t.Errorf("v2beta1 signals: %+v", b1.Metrics)
	}
	v1 := findAutoscaler(inv, "shop/HorizontalPodAutoscaler/web-v1")
	if len(v1.Target.Containers) != 2 || v1.Target.Containers[0].Name != "proxy" || !v1.Target.Containers[0].Sidecar ||
		v1.Target.CPULimitMilli != 1100 || v1.Target.MemoryLimitBytes != 640<<20 {
		t.Errorf("v1 target containers: %+v", v1.Target)
	}
	if v1.Origin.File != "hpa-versions.yaml" || v1.Origin.Line != 29 || v1.Target.Origin.Line != 2 {
		t.Errorf("origins: autoscaler %+v target %+v", v1.Origin, v1.Target.Origin)
	}
}

func TestExtractKEDATriggers(t *testing.T) {
	extractCase{
		name:    "keda-triggers",
		fixture: "keda-triggers.yaml",
		want: []want{{
			id: "jobs/ScaledObject/worker", hpaName: "keda-hpa-worker", min: 2, max: 10,
			// KEDA sorts by source type: ContainerResource < External < Resource.
			metrics: []string{
				"memory:512Mi",
				"External:s0-kafka-orders",
				"External:s1-aws-sqs-jobs-fifo",
				"External:s2-rabbitmq-a-2Fb",
				"External:s3-rabbitmq-hello",
				"External:s4-rabbitmq-hello",
				"External:s5-azure-servicebus-invoices",
				"External:s6-redis-mylist",
				"External:s7-prometheus",
				"External:s8-prometheus",
				"External:s9-nats-jetstream-events",
				"External:s10-gcp-ps-mysub",
				"External:s11-cron-Etc-UTC-08xxx-018xxx",
				"External:s12-aws-cloudwatch",
				"cpu:60%",
			},
			signal: SignalBacklog, target: "Deployment/worker", found: yes, unpriced: "-",
			findings: []string{"kafka-max-above-partitions: 6 partitions", "keda-unknown-trigger: aws-cloudwatch"},
		}},
	}.run(t)

	inv := Extract(loadObjects(t, "keda-triggers.yaml"), nil)
	a := inv.Autoscalers[0]
	type m struct {
		milli  int64
		signal Signal
	}
	want := map[string]m{
		"s0-kafka-orders":               {10000, SignalBacklog},
		"s1-aws-sqs-jobs-fifo":          {5000, SignalBacklog},
		"s2-rabbitmq-a-2Fb":             {20000, SignalBacklog},
		"s3-rabbitmq-hello":             {5000, SignalBacklog},
		"s4-rabbitmq-hello":             {2500, SignalRate},
		"s5-azure-servicebus-invoices":  {5000, SignalBacklog},
		"s6-redis-mylist":               {5000, SignalBacklog},
		"s7-prometheus":                 {100500, SignalRate},
		"s8-prometheus":                 {7000, SignalUnknown},
		"s9-nats-jetstream-events":      {10000, SignalBacklog},
		"s10-gcp-ps-mysub":              {7000, SignalBacklog},
		"s11-cron-Etc-UTC-08xxx-018xxx": {1000, SignalUnknown},
		"s12-aws-cloudwatch":            {100000, SignalUnknown},
	}
	for i, met := range a.Metrics {
		spec := a.HPA.Metrics[i]
		if spec.Type != autoscalingv2.ExternalMetricSourceType {
			continue
		}
		w, ok := want[met.Name]
		if !ok {
			t.Errorf("unexpected metric %s", met.Name)
			continue
		}
		if met.TargetMilli != w.milli || spec.External.Target.AverageValue.MilliValue() != w.milli ||
			spec.External.Target.Type != autoscalingv2.AverageValueMetricType {
			t.Errorf("%s: target %d (spec %v), want %d AverageValue", met.Name, met.TargetMilli, spec.External.Target.AverageValue, w.milli)
		}
		if met.Signal != w.signal {
			t.Errorf("%s: signal %s, want %s (%s)", met.Name, met.Signal, w.signal, met.Reason)
		}
		if spec.External.Metric.Selector.MatchLabels["scaledobject.keda.sh/name"] != "worker" {
			t.Errorf("%s: selector %+v", met.Name, spec.External.Metric.Selector)
		}
		if met.Trigger == nil {
			t.Errorf("%s: no trigger", met.Name)
		}
		if met.Signal == SignalUnknown && met.Reason == "" {
			t.Errorf("%s: unknown signal without a reason", met.Name)
		}
	}
	if c := a.Metrics[1].ReplicaCap; c == nil || *c != 6 {
		t.Errorf("kafka replica cap = %v, want 6", deref(c))
	}
	if mem := a.HPA.Metrics[0].ContainerResource; mem == nil || mem.Container != "worker" || mem.Name != "memory" {
		t.Errorf("memory trigger: %+v", a.HPA.Metrics[0])
	}
	if a.KEDA == nil || len(a.KEDA.Triggers) != 15 || a.KEDA.PollingInterval != 30*time.Second || a.KEDA.CooldownPeriod != 300*time.Second {
		t.Fatalf("keda settings: %+v", a.KEDA)
	}
	if a.KEDA.Triggers[8].ActivationMilli != 1000 {
		t.Errorf("prometheus activation = %d, want 1000", a.KEDA.Triggers[8].ActivationMilli)
	}
	if !strings.Contains(a.Metrics[12].Reason, "schedule") {
		t.Errorf("cron reason %q", a.Metrics[12].Reason)
	}
}

func TestExtractKEDAFeatures(t *testing.T) {
	extractCase{
		name:    "keda-features",
		fixture: "keda-features.yaml",
		want: []want{
			{id: "web/ScaledObject/api", hpaName: "api-hpa", min: 1, max: 20, metrics: []string{"External:s0-aws-sqs-api"},
				signal: SignalBacklog, unpriced: "-"},
			{id: "web/ScaledObject/broken", unpriced: "threshold is required",
				findings: []string{"keda-invalid-trigger: metadata.threshold is required"}, noFindings: []string{check.InvalidAutoscaler}},
			{id: "web/ScaledObject/idle", min: 1, max: 100, unpriced: "paused", findings: []string{"keda-paused: deletes its HPA"},
				noFindings: []string{check.AssumptionDefault}},
			// scalingModifiers: the cpu trigger stays, the two queues become
			// one composite metric whose target is the modifier's.
			{id: "web/ScaledObject/mixer", min: 1, max: 100, metrics: []string{"External:composite-metric", "cpu:70%"},
				signal: SignalBacklog, unpriced: "-"},
		},
		skipped: []string{"ScaledJob/batch", "TriggerAuthentication/auth", "ClusterTriggerAuthentication/cauth", "ScaledObject/legacy"},
		global:  []string{"keda-v1-schema: keda.k8s.io/v1alpha1"},
	}.run(t)

	inv := Extract(loadObjects(t, "keda-features.yaml"), nil)
	api := findAutoscaler(inv, "web/ScaledObject/api")
	b := api.HPA.Behavior
	if b == nil || b.ScaleUp == nil || *b.ScaleUp.StabilizationWindowSeconds != 30 || len(b.ScaleUp.Policies) != 1 || b.ScaleUp.SelectPolicy != nil {
		t.Errorf("behavior not passed through: %+v", b)
	}
	if b == nil || b.ScaleDown == nil || b.ScaleDown.SelectPolicy == nil || *b.ScaleDown.SelectPolicy != autoscalingv2.DisabledPolicySelect {
		t.Errorf("paused-scale-in must disable scale-down: %+v", b)
	}
	if !api.KEDA.PausedScaleIn || api.KEDA.PausedScaleOut {
		t.Errorf("pause flags: %+v", api.KEDA)
	}
	mixer := findAutoscaler(inv, "web/ScaledObject/mixer")
	if mixer.Metrics[0].TargetMilli != 2500 || mixer.KEDA.Formula != "q1 + q2" {
		t.Errorf("composite: %+v formula %q", mixer.Metrics[0], mixer.KEDA.Formula)
	}
}

func TestExtractTargets(t *testing.T) {
	extractCase{
		name:    "targets",
		fixture: "targets.yaml",
		want: []want{
			{id: "apps/HorizontalPodAutoscaler/canary", min: 2, max: 8, target: "Rollout/canary", found: yes,
				cpuMilli: 320, memBytes: 320 << 20, replicas: ptrTo[int32](4), unpriced: "-"},
			{id: "apps/HorizontalPodAutoscaler/ref", target: "Rollout/ref", found: yes, cpuMilli: 150, unpriced: "-"},
			{id: "apps/HorizontalPodAutoscaler/ghost", target: "Deployment/ghost", found: no,
				unpriced: "not among the rendered objects", findings: []string{"dangling-target: Deployment/ghost"}},
			{id: "apps/HorizontalPodAutoscaler/db", target: "StatefulSet/db", found: yes,
				findings: []string{"duplicate-autoscaler: apps/ScaledObject/db", "missing-request: container(s) db"}},
			{id: "apps/ScaledObject/db", target: "StatefulSet/db", found: yes,
				findings: []string{"duplicate-autoscaler: apps/HorizontalPodAutoscaler/db"}},
			// Neither side has a namespace: they match; the ID says default.
			{id: "default/HorizontalPodAutoscaler/bare", target: "ReplicaSet/bare", found: yes, cpuMilli: 1000, replicas: ptrTo[int32](2)},
		},
	}.run(t)
}

func TestExtractAnnotations(t *testing.T) {
	extractCase{
		name:    "annotations",
		fixture: "annotations.yaml",
		want: []want{
			{id: "ann/HorizontalPodAutoscaler/svc", unpriced: "-", noFindings: []string{check.AssumptionDefault, check.InvalidAnnotation}},
			{id: "ann/HorizontalPodAutoscaler/bad", findings: []string{
				`invalid-annotation: capreport.io/dead-time: "ninety" is not a duration, expected e.g. 90s`,
				`invalid-annotation: capreport.io/pod-rate: "-3"`,
				`invalid-annotation: capreport.io/overload: "0.5x"`,
				`invalid-annotation: capreport.io/signal: "queue"`,
				`unknown-annotation: capreport.io/deadtime`,
				`ignore-without-reason: duplicate-autoscaler`,
			}},
			// An unknown custom metric, settled by the signal annotation.
			{id: "ann/HorizontalPodAutoscaler/custom", signal: SignalBacklog, unpriced: "-"},
		},
	}.run(t)

	inv := Extract(loadObjects(t, "annotations.yaml"), nil)
	svc := findAutoscaler(inv, "ann/HorizontalPodAutoscaler/svc")
	as := svc.Assumptions
	// The autoscaler's annotation wins over the target's.
	if as.DeadTime.Value != time.Minute || as.DeadTime.From != FromAnnotation || as.DeadTime.Where == nil || as.DeadTime.Where.Line != svc.Origin.Line {
		t.Errorf("dead time %+v, want 1m from the autoscaler", as.DeadTime)
	}
	if as.PodRate.Value != 250 || as.PodRate.From != FromAnnotation || as.PodRate.Where.Line != svc.Target.Origin.Line {
		t.Errorf("pod rate %+v, want 250 from the target", as.PodRate)
	}
	if as.LatencyTarget.Value != 2*time.Second || !reflect.DeepEqual(as.Overload.Value, []float64{2, 5}) || as.Step.Value != 3 ||
		as.MetricWindow.Value != time.Minute || as.SaturatedEfficiency.Value != 0.8 || as.Demand.Value != 500 {
		t.Errorf("annotated assumptions: %+v", as)
	}
	if as.Signal.From != FromInferred || as.SyncPeriod.Value != 15*time.Second || as.SyncPeriod.From != FromDefault ||
		as.KubeVersion.Value != "1.34.0" || as.Tolerance.Value != 0.1 {
		t.Errorf("signal/cluster: %+v %+v %+v", as.Signal, as.SyncPeriod, as.KubeVersion)
	}
	want := map[string]string{"assumption-default": "batch service", "dangling-target": "target side"}
	if !reflect.DeepEqual(svc.Ignores, want) {
		t.Errorf("ignores %v, want %v", svc.Ignores, want)
	}
	bad := findAutoscaler(inv, "ann/HorizontalPodAutoscaler/bad")
	for _, f := range bad.Findings {
		if f.Check == check.InvalidAnnotation && (f.File() != "annotations.yaml" || f.Line() != 46) {
			t.Errorf("finding place %s:%d, want annotations.yaml:46", f.File(), f.Line())
		}
	}
	if bad.Assumptions.DeadTime.From != FromDefault || bad.Ignores != nil {
		t.Errorf("bad values must fall through: %+v, ignores %v", bad.Assumptions.DeadTime, bad.Ignores)
	}
	custom := findAutoscaler(inv, "ann/HorizontalPodAutoscaler/custom")
	if custom.Assumptions.Signal.From != FromAnnotation || custom.Assumptions.PodRate.Value != DefaultPodRateOther {
		t.Errorf("custom: %+v %+v", custom.Assumptions.Signal, custom.Assumptions.PodRate)
	}
}

func TestExtractConfigLayers(t *testing.T) {
	cfg, err := config.Parse("repo/.capreport.yaml", []byte(`defaults:
  deadTime: 2m
  podRate: 40
workloads:
  - namespace: shop
    name: "web-v2*"
    deadTime: 30s
  - kind: deployment
    name: web-v2beta2
    overload: [5x]
cluster:
  tolerance: 0.05
  kubeVersion: "1.33"
`))
	if err != nil {
		t.Fatal(err)
	}
	inv := Extract(loadObjects(t, "hpa-versions.yaml"), cfg)
	b2 := findAutoscaler(inv, "shop/HorizontalPodAutoscaler/web-v2beta2").Assumptions
	if b2.DeadTime.Value != 30*time.Second || b2.DeadTime.From != FromConfig || b2.DeadTime.Where == nil ||
		b2.DeadTime.Where.File != "repo/.capreport.yaml" || b2.DeadTime.Where.Line != 7 {
		t.Errorf("workload dead time %+v (where %+v)", b2.DeadTime, b2.DeadTime.Where)
	}
	// The second entry matches the target (a Deployment) by kind, case-insensitively.
	if !reflect.DeepEqual(b2.Overload.Value, []float64{5}) || b2.Overload.From != FromConfig {
		t.Errorf("overload %+v", b2.Overload)
	}
	if b2.PodRate.Value != 40 || b2.PodRate.From != FromConfig || b2.PodRate.Where.Line != 3 {
		t.Errorf("default pod rate %+v", b2.PodRate)
	}
	if b2.Tolerance.Value != 0.05 || b2.Tolerance.From != FromCluster || b2.KubeVersion.Value != "1.33.0" || b2.SyncPeriod.From != FromDefault {
		t.Errorf("cluster %+v %+v", b2.Tolerance, b2.KubeVersion)
	}
	v1 := findAutoscaler(inv, "shop/HorizontalPodAutoscaler/web-v1")
	if v1.Assumptions.DeadTime.Value != 2*time.Minute {
		t.Errorf("web-v1 takes the defaults section: %+v", v1.Assumptions.DeadTime)
	}
	if hasFinding(v1.Findings, check.AssumptionDefault) {
		t.Errorf("config values are not defaults: %s", findingList(v1.Findings))
	}
}

// A chart rendered under two value sets yields the same autoscaler twice:
// distinct IDs, and no duplicate-autoscaler between the renders.
func TestExtractValueSets(t *testing.T) {
	objs := loadObjects(t, "targets.yaml")
	var both []render.Object
	for _, set := range []string{"chart@a", "chart@b"} {
		for _, o := range objs {
			o.Origin.Source = set
			both = append(both, o)
		}
	}
	inv := Extract(both, nil)
	if len(inv.Autoscalers) != 12 {
		t.Fatalf("got %d autoscalers, want 12", len(inv.Autoscalers))
	}
	ids := map[string]bool{}
	for _, a := range inv.Autoscalers {
		if ids[a.ID] {
			t.Errorf("duplicate ID %s", a.ID)
		}
		ids[a.ID] = true
		for _, f := range a.Findings {
			if f.Check == check.DuplicateAutoscaler && !strings.Contains(f.Message, "/db") {
				t.Errorf("%s: cross-render duplicate: %s", a.ID, f.Message)
			}
		}
	}
	if !ids["apps/HorizontalPodAutoscaler/canary@chart@a"] || !ids["apps/HorizontalPodAutoscaler/canary@chart@b"] {
		t.Errorf("IDs: %v", ids)
	}
}

// Broken shapes never panic and always explain themselves.
func TestExtractMalformed(t *testing.T) {
	docs := []string{
		`{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: a}, spec: {maxReplicas: "many"}}`,
		`{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: b}, spec: {maxReplicas: 0, metrics: [{type: Resource}]}}`,
		`{apiVersion: autoscaling/v2beta1, kind: HorizontalPodAutoscaler, metadata: {name: c}, spec: {maxReplicas: 2, scaleTargetRef: {kind: Deployment, name: x}, metrics: [{type: External, external: {metricName: m}}]}}`,
		`{apiVersion: autoscaling/v3, kind: HorizontalPodAutoscaler, metadata: {name: d}}`,
		`{apiVersion: keda.sh/v1alpha1, kind: ScaledObject, metadata: {name: e}, spec: {triggers: "no"}}`,
		`{apiVersion: keda.sh/v1alpha1, kind: ScaledObject, metadata: {name: f}, spec: {minReplicaCount: 5, maxReplicaCount: 2, idleReplicaCount: 7, triggers: [{type: cpu, metadata: {value: x}}, {type: kafka, metadata: {lagThreshold: "-1"}}, {type: rabbitmq, metadata: {mode: Bogus, value: "1"}}, {type: cron, metadata: {}}, {}]}}`,
		`{apiVersion: keda.sh/v1alpha1, kind: ScaledObject, metadata: {name: g, annotations: {capreport.io/partitions: "x", autoscaling.keda.sh/paused-replicas: "3"}}, spec: {scaleTargetRef: {name: y}, advanced: {scalingModifiers: {formula: "a", target: "-1"}}, triggers: [{type: redis, metadata: {listLength: "0"}}]}}`,
	}
	var objs []render.Object
	for i, d := range docs {
		o, err := decodeObjects("malformed.yaml", []byte(d))
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		objs = append(objs, o...)
	}
	inv := Extract(objs, nil)
	if len(inv.Autoscalers)+len(inv.Skipped) != len(docs) {
		t.Fatalf("%d autoscalers + %d skipped, want %d objects accounted for", len(inv.Autoscalers), len(inv.Skipped), len(docs))
	}
	for _, a := range inv.Autoscalers {
		if a.Unpriced == "" {
			t.Errorf("%s: a broken autoscaler must be unpriced", a.ID)
		}
	}
	for _, s := range inv.Skipped {
		if !strings.Contains(s.Reason, "decode") && !strings.Contains(s.Reason, "not an HPA version") {
			t.Errorf("skipped %s: %s", s.Name, s.Reason)
		}
	}
}

// One finding per assumption left at its default, listing the autoscalers
// that rest on it, not one per workload; an autoscaler that ignores
// assumption-default, or whose bill needs no dead time, is left out.
func TestDefaultFindingsGrouped(t *testing.T) {
	inv := Extract(loadObjects(t, "hpa-versions.yaml"), nil)
	var dead, rate []check.Finding
	for _, f := range inv.Findings {
		switch {
		case f.Check == check.AssumptionDefault && strings.HasPrefix(f.Message, "dead time not given for "):
			dead = append(dead, f)
		case f.Check == check.AssumptionDefault && strings.HasPrefix(f.Message, "pod rate not given for "):
			rate = append(rate, f)
		}
	}
	if len(dead) != 1 || len(rate) != 1 {
		t.Fatalf("want one dead-time and one pod-rate finding, got %+v", inv.Findings)
	}
	for _, a := range inv.Autoscalers {
		for _, f := range a.Findings {
			if f.Check == check.AssumptionDefault {
				t.Errorf("%s carries its own %s finding", a.ID, f.Check)
			}
		}
		priced := a.Unpriced == "" && (a.Signal == SignalSaturating || a.Signal == SignalBacklog)
		if priced && a.Assumptions.DeadTime.From == FromDefault && !strings.Contains(dead[0].Message, a.ID) {
			t.Errorf("%s rests on the default dead time but is not listed: %s", a.ID, dead[0].Message)
		}
		if !priced && strings.Contains(dead[0].Message, a.ID+",") {
			t.Errorf("%s is not priced yet listed: %s", a.ID, dead[0].Message)
		}
	}
	if !strings.Contains(dead[0].Message, "autoscalers; each uses the default 1m30s") || !strings.Contains(dead[0].Remediation, "capreport calibrate") {
		t.Errorf("message %q / fix %q", dead[0].Message, dead[0].Remediation)
	}
	var many []Autoscaler
	for i := range maxListedDefaults + 5 {
		a := inv.Autoscalers[0]
		a.ID = fmt.Sprintf("ns/HorizontalPodAutoscaler/a%02d", i)
		many = append(many, a)
	}
	fs := defaultFindings(many)
	if len(fs) == 0 || !strings.Contains(fs[0].Message, fmt.Sprintf("%d autoscalers", len(many))) || !strings.HasSuffix(fs[0].Message, " and 5 more") {
		t.Errorf("long list: %+v", fs)
	}
}
