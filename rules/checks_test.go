package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
)

// app is a Deployment with a CPU HPA, written as a user would.
type app struct {
	name               string
	target             int
	min, max           int
	limit              string
	annotations        map[string]string
	targetName         string // scaleTargetRef name; default: name
	deploymentReplicas int
	noLimit            bool
}

func (a app) yaml() string {
	if a.min == 0 {
		a.min = 10
	}
	if a.max == 0 {
		a.max = 100000
	}
	if a.limit == "" {
		a.limit = "1"
	}
	if a.targetName == "" {
		a.targetName = a.name
	}
	if a.deploymentReplicas == 0 {
		a.deploymentReplicas = 10
	}
	resources := fmt.Sprintf(`{requests: {cpu: "1"}, limits: {cpu: "%s"}}`, a.limit)
	if a.noLimit {
		resources = `{requests: {cpu: "1"}}`
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: t}
spec:
  replicas: %[8]d
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      containers:
        - name: app
          image: x
          resources: %[5]s
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: %[1]s
  namespace: t
  annotations:
%[6]s
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: %[7]s}
  minReplicas: %[3]d
  maxReplicas: %[4]d
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: %[2]d}}
---
`, a.name, a.target, a.min, a.max, resources, annotationsYAML(a.annotations), a.targetName, a.deploymentReplicas)
}

// consumer is a Deployment scaled by a KEDA Kafka ScaledObject.
type consumer struct {
	name        string
	lag         int
	annotations map[string]string
	toZero      bool // leave minReplicaCount out: KEDA scales it to zero
}

func (c consumer) yaml() string {
	minRC := "\n  minReplicaCount: 1"
	if c.toZero {
		minRC = ""
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: t}
spec:
  replicas: 5
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 250m}}}]
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: %[1]s
  namespace: t
  annotations:
%[3]s
spec:
  scaleTargetRef: {name: %[1]s}%[4]s
  maxReplicaCount: 100
  triggers:
    - type: kafka
      metadata: {bootstrapServers: "k:9092", consumerGroup: g, topic: t, lagThreshold: "%[2]d"}
---
`, c.name, c.lag, annotationsYAML(c.annotations), minRC)
}

func annotationsYAML(m map[string]string) string {
	var b strings.Builder
	b.WriteString("    example.com/owner: \"team-a\"\n")
	for k, v := range m {
		fmt.Fprintf(&b, "    %s: %q\n", k, v)
	}
	return strings.TrimRight(b.String(), "\n")
}

// measured are the annotations that keep assumption-default quiet.
func measured(extra ...string) map[string]string {
	m := map[string]string{"capreport.io/dead-time": "90s", "capreport.io/pod-rate": "100"}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

func measuredConsumer(extra ...string) map[string]string {
	m := measured(append([]string{"capreport.io/pod-rate", "10", "capreport.io/demand", "50"}, extra...)...)
	return m
}

// repoOf writes manifests into a temporary repository and prices it.
func repoOf(t *testing.T, cfgYAML string, docs ...string) *contract.Report {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "manifests.yaml"), []byte(strings.Join(docs, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	if cfgYAML != "" {
		var err error
		if cfg, err = config.Parse(".capreport.yaml", []byte(cfgYAML)); err != nil {
			t.Fatal(err)
		}
	}
	return buildDir(t, dir, cfg)
}

func TestChecksTriggerAndStayQuiet(t *testing.T) {
	for _, c := range []struct {
		check   string
		fires   string // manifests that raise the check on workload "fires"
		quiet   string // manifests that do not, on workload "quiet"
		firesID string
		quietID string
	}{
		{check.DeadBand,
			app{name: "fires", target: 93, annotations: measured()}.yaml(),
			app{name: "quiet", target: 50, annotations: measured()}.yaml(), "", ""},
		{check.RecoveryTooSlow,
			app{name: "fires", target: 80, annotations: measured("capreport.io/latency-target", "5m", "capreport.io/overload", "30x")}.yaml(),
			app{name: "quiet", target: 50, annotations: measured("capreport.io/latency-target", "5m", "capreport.io/overload", "3x")}.yaml(), "", ""},
		{check.PeakWaitOverTarget,
			app{name: "fires", target: 80, annotations: measured("capreport.io/latency-target", "5m", "capreport.io/overload", "30x")}.yaml(),
			app{name: "quiet", target: 50, annotations: measured("capreport.io/latency-target", "5m", "capreport.io/overload", "3x")}.yaml(), "", ""},
		{check.MaxReplicasBelowNeed,
			app{name: "fires", target: 50, max: 50, annotations: measured("capreport.io/overload", "10x")}.yaml(),
			app{name: "quiet", target: 50, max: 1000, annotations: measured("capreport.io/overload", "10x")}.yaml(), "", ""},
		{check.MinEqualsMax,
			app{name: "fires", target: 50, min: 10, max: 10, annotations: measured()}.yaml(),
			app{name: "quiet", target: 50, min: 10, max: 20, annotations: measured()}.yaml(), "", ""},
		{check.DanglingTarget,
			app{name: "fires", target: 50, annotations: measured(), targetName: "nowhere"}.yaml(),
			app{name: "quiet", target: 50, annotations: measured()}.yaml(), "", ""},
		{check.Hunting,
			consumer{name: "fires", lag: 10, annotations: measuredConsumer()}.yaml(),
			consumer{name: "quiet", lag: 1500, annotations: measuredConsumer()}.yaml(),
			"t/ScaledObject/fires", "t/ScaledObject/quiet"},
		{check.LatencyFloor,
			consumer{name: "fires", lag: 1500, annotations: measuredConsumer("capreport.io/latency-target", "30s")}.yaml(),
			consumer{name: "quiet", lag: 1500, annotations: measuredConsumer("capreport.io/latency-target", "200s")}.yaml(),
			"t/ScaledObject/fires", "t/ScaledObject/quiet"},
		{check.StandingDelayOverTarget,
			consumer{name: "fires", lag: 1500, annotations: measuredConsumer("capreport.io/latency-target", "120s")}.yaml(),
			consumer{name: "quiet", lag: 1500, annotations: measuredConsumer("capreport.io/latency-target", "200s")}.yaml(),
			"t/ScaledObject/fires", "t/ScaledObject/quiet"},
		// At rest D = 110 s holds 115 s; from zero the first message waits
		// 30 s + 90 s.
		{check.FirstMessageWaitOverTarget,
			consumer{name: "fires", lag: 1100, toZero: true, annotations: measuredConsumer("capreport.io/latency-target", "115s")}.yaml(),
			consumer{name: "quiet", lag: 1100, annotations: measuredConsumer("capreport.io/latency-target", "115s")}.yaml(),
			"t/ScaledObject/fires", "t/ScaledObject/quiet"},
		{check.KafkaPartitionCap,
			consumer{name: "fires", lag: 1500, annotations: measuredConsumer("capreport.io/partitions", "10")}.yaml(),
			consumer{name: "quiet", lag: 1500, annotations: measuredConsumer("capreport.io/partitions", "50")}.yaml(),
			"t/ScaledObject/fires", "t/ScaledObject/quiet"},
	} {
		t.Run(c.check, func(t *testing.T) {
			firesID, quietID := c.firesID, c.quietID
			if firesID == "" {
				firesID, quietID = "t/HorizontalPodAutoscaler/fires", "t/HorizontalPodAutoscaler/quiet"
			}
			r := repoOf(t, "", c.fires, c.quiet)
			if w := workload(t, r, firesID); !hasCheck(w, c.check) {
				t.Errorf("%s not raised; findings %+v", c.check, checkIDs(w))
			} else if w.Verdict == contract.VerdictPass {
				t.Errorf("verdict pass with %s raised", c.check)
			}
			if w := workload(t, r, quietID); hasCheck(w, c.check) {
				t.Errorf("%s raised on the quiet workload: %+v", c.check, w.Findings)
			}
		})
	}
}

func TestDuplicateAutoscaler(t *testing.T) {
	r := repoOf(t, "",
		app{name: "a", target: 50, annotations: measured()}.yaml(),
		app{name: "b", target: 50, annotations: measured(), targetName: "a"}.yaml(),
		app{name: "c", target: 50, annotations: measured()}.yaml())
	for id, want := range map[string]bool{
		"t/HorizontalPodAutoscaler/a": true, "t/HorizontalPodAutoscaler/b": true, "t/HorizontalPodAutoscaler/c": false,
	} {
		if got := hasCheck(workload(t, r, id), check.DuplicateAutoscaler); got != want {
			t.Errorf("%s: duplicate-autoscaler %v, want %v", id, got, want)
		}
	}
}

func TestIgnoreAnnotation(t *testing.T) {
	doc := app{name: "hot", target: 95, annotations: measured("ignore-check.capreport.io/dead-band", "batch tier, overloads are shed upstream")}.yaml()
	r := repoOf(t, "", doc)
	w := workload(t, r, "t/HorizontalPodAutoscaler/hot")
	var f *contract.Finding
	for i := range w.Findings {
		if w.Findings[i].Check == check.DeadBand {
			f = &w.Findings[i]
		}
	}
	if f == nil || !f.Ignored || f.IgnoreReason != "batch tier, overloads are shed upstream" {
		t.Fatalf("dead-band finding %+v, want ignored with its reason", f)
	}
	if w.Verdict == contract.VerdictFail {
		t.Errorf("an ignored finding failed the workload")
	}
	t.Run("forbidden by config", func(t *testing.T) {
		r := repoOf(t, "checks:\n  allowIgnores: false\n", doc)
		w := workload(t, r, "t/HorizontalPodAutoscaler/hot")
		if !hasCheck(w, check.DeadBand) || !hasCheck(w, check.IgnoreWithoutReason) || w.Verdict != contract.VerdictFail {
			t.Errorf("with ignores forbidden: findings %v verdict %s", checkIDs(w), w.Verdict)
		}
	})
}

func TestConfigIncludeExclude(t *testing.T) {
	docs := []string{
		app{name: "hot", target: 95}.yaml(), // dead-band and assumption-default
		consumer{name: "q", lag: 10, annotations: measuredConsumer()}.yaml(),
	}
	r := repoOf(t, "checks:\n  exclude: [dead-band]\n", docs...)
	hot := workload(t, r, "t/HorizontalPodAutoscaler/hot")
	if hasCheck(hot, check.DeadBand) || !reportHasCheck(r, check.AssumptionDefault) {
		t.Errorf("exclude dead-band: findings %v, report findings %+v", checkIDs(hot), r.Findings)
	}
	r = repoOf(t, "checks:\n  include: [hunting]\n", docs...)
	for _, w := range r.Workloads {
		for _, f := range w.Findings {
			if f.Check != check.Hunting {
				t.Errorf("include [hunting] kept %s on %s", f.Check, w.ID)
			}
		}
	}
	if !hasCheck(workload(t, r, "t/ScaledObject/q"), check.Hunting) {
		t.Errorf("include [hunting] dropped hunting")
	}
}

func checkIDs(w contract.Workload) []string {
	var ids []string
	for _, f := range w.Findings {
		ids = append(ids, f.Check)
	}
	return ids
}

func TestFormatDuration(t *testing.T) {
	for s, want := range map[float64]string{
		0.5: "0.5s", 45: "45s", 90: "1m30s", 300: "5m", 690: "11m30s", 3600: "1h", 3720: "1h2m", 3725: "1h2m5s",
	} {
		if got := FormatDuration(s); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", s, got, want)
		}
	}
}

func TestMultiMetricNotes(t *testing.T) {
	doc := strings.Replace(app{name: "both", target: 50, annotations: measured()}.yaml(),
		"      resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}\n",
		"      resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}\n"+
			"    - type: Resource\n      resource: {name: memory, target: {type: AverageValue, averageValue: 1Gi}}\n", 1)
	r := repoOf(t, "", doc, app{name: "cpu", target: 50, annotations: measured()}.yaml())
	if w := workload(t, r, "t/HorizontalPodAutoscaler/both"); w.Size == nil || !hasCheck(w, check.MetricNotModelled) {
		t.Errorf("cpu+memory HPA: priced %v, findings %v", w.Size != nil, checkIDs(w))
	}
	if w := workload(t, r, "t/HorizontalPodAutoscaler/cpu"); hasCheck(w, check.MetricNotModelled) {
		t.Errorf("a CPU-only HPA noted an unmodelled metric")
	}
}

// The dead band's bill: no rounds bound (the controller never scales), the
// hottest target advised outside the band, and the message names a target a
// pod cannot reach or a limit that was assumed.
func TestDeadBandBill(t *testing.T) {
	r := repoOf(t, "",
		app{name: "hot", target: 95, annotations: measured("capreport.io/latency-target", "30m", "capreport.io/overload", "3x")}.yaml(),
		app{name: "over", target: 300, annotations: measured()}.yaml(),
		app{name: "nolimit", target: 95, noLimit: true, annotations: measured()}.yaml())
	hot := workload(t, r, "t/HorizontalPodAutoscaler/hot")
	if !hot.Size.DeadBand || hot.Size.Overloads[0].RoundsBound != nil {
		t.Errorf("95%% at limit = request: dead band %v, bound %v; want true and none", hot.Size.DeadBand, hot.Size.Overloads[0].RoundsBound)
	}
	if h := hot.Size.HottestTarget; h == nil || *h > 90 {
		t.Errorf("hottest target %v advised inside the dead band (91%% and up)", h)
	}
	if a := hot.Assumptions["cpuLimit"]; a.From != "manifest" || a.Value != "1" {
		t.Errorf("cpuLimit assumption %+v, want 1 from the manifest", a)
	}
	over := workload(t, r, "t/HorizontalPodAutoscaler/over")
	if msg := findingMessage(over, check.DeadBand); !strings.Contains(msg, "above the most a pod can use") {
		t.Errorf("300%% target: %q", msg)
	}
	nolimit := workload(t, r, "t/HorizontalPodAutoscaler/nolimit")
	if a := nolimit.Assumptions["cpuLimit"]; a.From != "default" || !strings.Contains(a.Value, "no CPU limit") {
		t.Errorf("cpuLimit assumption %+v, want the request, defaulted", a)
	}
	if msg := findingMessage(nolimit, check.DeadBand); !strings.Contains(msg, "no CPU limit is set") {
		t.Errorf("no-limit dead band: %q", msg)
	}
}

func findingMessage(w contract.Workload, check string) string {
	for _, f := range w.Findings {
		if f.Check == check {
			return f.Message
		}
	}
	return ""
}

// A default is a finding only where a bill rests on it: not on a rate
// signal, which is not priced.
func TestNoAssumptionDefaultWhenUnpriced(t *testing.T) {
	rate := strings.Replace(consumer{name: "rate", lag: 10}.yaml(),
		`    - type: kafka
      metadata: {bootstrapServers: "k:9092", consumerGroup: g, topic: t, lagThreshold: "10"}`,
		`    - type: prometheus
      metadata: {serverAddress: "http://prom:9090", query: "sum(rate(http_requests_total[2m]))", threshold: "100"}`, 1)
	r := repoOf(t, "", rate)
	w := workload(t, r, "t/ScaledObject/rate")
	if w.Signal != "rate" || w.Verdict != contract.VerdictUnpriced || hasCheck(w, check.AssumptionDefault) {
		t.Errorf("rate signal: %s, verdict %s, findings %v", w.Signal, w.Verdict, checkIDs(w))
	}
}

// A CPU AverageValue target is priced through the plain-average path.
func TestAverageValueCPUTarget(t *testing.T) {
	doc := strings.Replace(app{name: "avg", target: 50, annotations: measured("capreport.io/overload", "10x")}.yaml(),
		"target: {type: Utilization, averageUtilization: 50}", "target: {type: AverageValue, averageValue: 500m}", 1)
	w := workload(t, repoOf(t, "", doc), "t/HorizontalPodAutoscaler/avg")
	if w.Size == nil {
		t.Fatalf("unpriced: %s", w.UnpricedReason)
	}
	o := w.Size.Overloads[0]
	if w.Size.GrowthFactor != 2 || o.TimeToCapacitySeconds == nil || *o.TimeToCapacitySeconds != 345 || w.Size.DeadBand {
		t.Errorf("averageValue 500m of a 1-core request: g %v, capacity %v, dead band %v; want 2, 345 s, false",
			w.Size.GrowthFactor, o.TimeToCapacitySeconds, w.Size.DeadBand)
	}
}

func TestUnknownCheckIDs(t *testing.T) {
	doc := app{name: "hot", target: 95, annotations: measured("ignore-check.capreport.io/dead-bnad", "typo")}.yaml()
	r := repoOf(t, "checks:\n  exclude: [assumtion-default]\n", doc)
	var report []string
	for _, f := range r.Findings {
		report = append(report, f.Check+": "+f.Message)
	}
	if len(report) != 1 || !strings.Contains(report[0], `"assumtion-default"`) {
		t.Errorf("report findings %v, want one unknown-check for the exclude typo", report)
	}
	w := workload(t, r, "t/HorizontalPodAutoscaler/hot")
	if msg := findingMessage(w, check.UnknownCheck); !strings.Contains(msg, "dead-bnad") || !hasCheck(w, check.DeadBand) {
		t.Errorf("ignore typo: %q, findings %v", msg, checkIDs(w))
	}
}

func reportHasCheck(r *contract.Report, id string) bool {
	for _, f := range r.Findings {
		if f.Check == id {
			return true
		}
	}
	return false
}

// assumption-default is one repository-level finding per assumption,
// naming the workloads that rest on it, never the measured one.
func TestAssumptionDefaultGrouped(t *testing.T) {
	r := repoOf(t, "", app{name: "fires", target: 50}.yaml(), app{name: "also", target: 50}.yaml(),
		app{name: "quiet", target: 50, annotations: measured()}.yaml())
	var msgs []string
	for _, f := range r.Findings {
		if f.Check == check.AssumptionDefault {
			msgs = append(msgs, f.Message)
		}
	}
	if len(msgs) != 2 {
		t.Fatalf("assumption-default findings %q, want one for the dead time and one for the pod rate", msgs)
	}
	for _, m := range msgs {
		if !strings.Contains(m, "2 autoscalers") || !strings.Contains(m, "t/HorizontalPodAutoscaler/fires") ||
			!strings.Contains(m, "t/HorizontalPodAutoscaler/also") || strings.Contains(m, "quiet") {
			t.Errorf("finding %q", m)
		}
	}
	for _, w := range r.Workloads {
		if hasCheck(w, check.AssumptionDefault) {
			t.Errorf("%s carries its own assumption-default", w.ID)
		}
	}
}
