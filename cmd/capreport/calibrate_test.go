package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/internal/promtest"
	"github.com/capreport/capreport/internal/testutil"
)

const calibrateManifests = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  template:
    spec:
      containers:
        - {name: app, resources: {requests: {cpu: 500m}, limits: {cpu: 500m}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 3
  maxReplicas: 30
  metrics:
    - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: cache, namespace: shop}
spec:
  template:
    spec:
      containers:
        - {name: app, resources: {requests: {cpu: 500m}, limits: {cpu: 500m}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: cache, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: cache}
  minReplicas: 1
  maxReplicas: 4
  metrics:
    - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker, namespace: jobs}
spec:
  template:
    spec:
      containers:
        - {name: app, resources: {requests: {cpu: 500m}}}
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: worker, namespace: jobs}
spec:
  scaleTargetRef: {name: worker}
  minReplicaCount: 1
  maxReplicaCount: 20
  triggers:
    - type: kafka
      metadata: {bootstrapServers: "kafka:9092", consumerGroup: g, topic: orders, lagThreshold: "100"}
`

const calibrateConfig = `# capreport settings for the test cluster
defaults:
  latencyTarget: 30s # what users tolerate
workloads:
  # the API: measured by calibrate
  - namespace: shop
    kind: Deployment
    name: api
    latencyTarget: 20s # tighter
`

// calibrateHistory is one day of the synthetic cluster, ending at end, and
// the dead times it holds per workload.
func calibrateHistory(end time.Time) ([]byte, map[string][]float64) {
	start := end.Add(-24 * time.Hour)
	g := genSeries{}
	dead := map[string][]float64{}
	dead["api"] = genWorkload{ns: "shop", kind: "Deployment", name: "api", rs: "api-5d9c", slots: 3, every: 2 * time.Hour, generations: 12,
		deadTime: func(i int) time.Duration { return time.Duration(20+(i*37)%41) * time.Second },
		total: func(t time.Time) float64 {
			if h := t.Sub(start); h >= 13*time.Hour && h < 14*time.Hour {
				return 360
			}
			return 120
		},
		counter: "http_requests_total", cpuPerUnit: 0.5 / 80}.emit(g, start, end)
	busy := func(t time.Time) bool { return int(t.Sub(start)/time.Hour)%3 == 0 }
	dead["worker"] = genWorkload{ns: "jobs", kind: "Deployment", name: "worker", rs: "worker-6b7f", slots: 2, every: 3 * time.Hour, generations: 8,
		deadTime: func(i int) time.Duration { return time.Duration(40+(i*13)%29) * time.Second },
		total: func(t time.Time) float64 {
			if busy(t) {
				return 50
			}
			return 8
		},
		counter: "kafka_consumer_fetch_manager_records_consumed_total", cpuPerUnit: 0.001}.emit(g, start, end)
	dead["cache"] = genWorkload{ns: "shop", kind: "StatefulSet", name: "cache", slots: 1, every: 10 * time.Hour, generations: 2,
		deadTime: func(int) time.Duration { return 30 * time.Second }}.emit(g, start, end)
	for t := start; !t.After(end); t = t.Add(genScrape) {
		v := 0.0
		if busy(t) {
			v = 500
		}
		g.add("keda_scaler_metrics_value", `metric="s0-kafka-orders",namespace="jobs",scaledObject="worker",scaler="kafkaScaler",triggerIndex="0",type="ScaledObject"`, t, v)
	}
	return g.write(), dead
}

func within(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*want {
		t.Errorf("%s = %g, want %g ± %g%%", what, got, want, rel*100)
	}
}

// calibrate against a real Prometheus recovers the known dead times and
// rates, writes them beside the file's comments, and a second run changes
// nothing.
func TestCalibrateAgainstPrometheus(t *testing.T) {
	testutil.SkipIfShort(t)
	end := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour)
	om, dead := calibrateHistory(end)
	url := promtest.Start(t, om)

	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"app.yaml": calibrateManifests, ".capreport.yaml": calibrateConfig})
	cfgPath := filepath.Join(dir, ".capreport.yaml")
	args := []string{"calibrate", dir, "--root", dir, "--prometheus", url, "--since", "1d"}
	runCal := func(extra ...string) (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		f := newFactory(&cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
		f.Now = func() time.Time { return end }
		if code := execute(append(args, extra...), f); code != cmdutil.ExitOK {
			t.Fatalf("calibrate exit %d:\n%s", code, errOut.String())
		}
		return out.String(), errOut.String()
	}

	diff, _ := runCal("--dry-run")
	if !strings.Contains(diff, "--- a/") || !strings.Contains(diff, "+    deadTime: ") {
		t.Fatalf("--dry-run printed no diff:\n%s", diff)
	}
	if got, _ := os.ReadFile(cfgPath); string(got) != calibrateConfig {
		t.Fatal("--dry-run wrote the file")
	}

	_, status := runCal()
	if !strings.Contains(status, "shop/StatefulSet/cache: deadTime: 2 pod(s)") {
		t.Errorf("no finding for the workload with too few pods:\n%s", status)
	}
	if !strings.Contains(status, "in 11 queries") {
		t.Errorf("want 11 queries (two namespaces, batched):\n%s", status)
	}
	written, _ := os.ReadFile(cfgPath)
	for _, c := range []string{"# capreport settings for the test cluster", "# what users tolerate", "# the API: measured by calibrate", "# tighter"} {
		if !bytes.Contains(written, []byte(c)) {
			t.Errorf("comment %q lost:\n%s", c, written)
		}
	}
	checkCalibrated(t, cfgPath, written, dead)

	_, status = runCal()
	again, _ := os.ReadFile(cfgPath)
	if !bytes.Equal(again, written) || !strings.Contains(status, "unchanged") {
		t.Fatalf("a second run changed the file:\n%s", Diff(written, again))
	}

	var out, errOut bytes.Buffer
	run([]string{"list", dir, "--root", dir}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
	if !strings.Contains(out.String()+errOut.String(), "measured p90 over 1d, 36 pods") {
		t.Errorf("list does not show the measurement:\n%s", out.String()+errOut.String())
	}
}

// Diff is a short unified diff for failure messages.
func Diff(a, b []byte) string { return string(a) + "\n----\n" + string(b) }

func checkCalibrated(t *testing.T, path string, data []byte, dead map[string][]float64) {
	t.Helper()
	cfg, err := config.Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	get := func(ns, kind, name string) config.Assumptions {
		a, _ := cfg.WorkloadAssumptions(ns, config.ObjectRef{Kind: kind, Name: name})
		return a
	}
	api, worker, cache := get("shop", "Deployment", "api"), get("jobs", "Deployment", "worker"), get("shop", "StatefulSet", "cache")
	for name, a := range map[string]config.Assumptions{"api": api, "worker": worker} {
		lo, hi := quantileBounds(dead[name], 0.9)
		if d := a.DeadTime.Value.Seconds(); d < lo-1 || d > hi+1 || a.DeadTime.Measured == nil {
			t.Errorf("%s deadTime = %gs (measured %v), want p90 in [%g, %g] ± 1s", name, d, a.DeadTime.Measured, lo, hi)
		} else if m := a.DeadTime.Measured; m.Samples != len(dead[name]) || m.Quantile != 0.9 || m.Window != "1d" {
			t.Errorf("%s deadTime record = %+v, want %d pods", name, m, len(dead[name]))
		}
	}
	within(t, "api podRate", api.PodRate.Value, 80, 0.02)
	within(t, "api demand", api.Demand.Value, 120, 0.02)
	within(t, "worker podRate (busy consumers)", worker.PodRate.Value, 25, 0.02)
	within(t, "worker demand", worker.Demand.Value, 8, 0.02)
	if len(api.Overload.Value) != 1 || len(worker.Overload.Value) != 1 {
		t.Fatalf("overloads: api %v, worker %v", api.Overload.Value, worker.Overload.Value)
	}
	within(t, "api overload", api.Overload.Value[0], 3, 0.05)
	within(t, "worker overload", worker.Overload.Value[0], 50.0/8, 0.05)
	if api.LatencyTarget.Value != 20*time.Second {
		t.Errorf("api latencyTarget lost: %v", api.LatencyTarget)
	}
	if cache.DeadTime.Set || cache.PodRate.Set {
		t.Errorf("cache written despite its findings: %+v", cache)
	}
}
