package analyze

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render"
)

// annotatedStream is a multi-document plain file: the annotations stand
// below the object's first line, so an annotation line and the object's
// line differ.
const annotatedStream = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  annotations:
    capreport.io/pod-rate: "50"
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          resources: {requests: {cpu: 500m}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: shop
  labels: {app: web}
  annotations:
    capreport.io/latency-target: 2s
    capreport.io/dead-time: soon
    capreport.io/deadtime: 90s
    ignore-check.capreport.io/signal-unknown: ""
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: consumer
  namespace: shop
  annotations:
    capreport.io/partitions: many
    autoscaling.keda.sh/paused: "true"
spec:
  scaleTargetRef: {name: web}
  maxReplicaCount: 10
  triggers:
    - type: cpu
      metricType: Utilization
      metadata: {value: "60"}
`

// Lines of annotatedStream.
const (
	lineDeployment    = 1
	linePodRate       = 7
	lineHPA           = 18
	lineLatencyTarget = 25
	lineDeadTime      = 26
	lineDeadtimeTypo  = 27
	lineIgnore        = 28
	lineSO            = 37
	linePartitions    = 43
	linePaused        = 44
)

func renderAnnotatedStream(t *testing.T) []render.Object {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "all.yaml"), []byte(annotatedStream), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := render.Render(context.Background(), root, render.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Objects) != 3 {
		t.Fatalf("rendered %d objects, want 3: %+v", len(res.Objects), res.Sources)
	}
	return res.Objects
}

// findingLine returns the line of the one finding of check whose message
// contains sub.
func findingLine(t *testing.T, fs []check.Finding, check, sub string) int {
	t.Helper()
	for _, f := range fs {
		if f.Check == check && strings.Contains(f.Message, sub) {
			if f.File() != "all.yaml" {
				t.Errorf("%s %q: file %q, want all.yaml", check, sub, f.File())
			}
			return f.Line()
		}
	}
	t.Errorf("no %s finding with %q in %+v", check, sub, fs)
	return -1
}

func TestAnnotationFindingLines(t *testing.T) {
	type lines struct {
		deadTime, typo, ignore, partitions, paused int
		latencyWhere, podRateWhere                 int
	}
	expect := func(t *testing.T, objs []render.Object, want lines) {
		t.Helper()
		inv := Extract(objs, nil)
		hpa := findAutoscaler(inv, "shop/HorizontalPodAutoscaler/web")
		so := findAutoscaler(inv, "shop/ScaledObject/consumer")
		if hpa == nil || so == nil {
			t.Fatalf("autoscalers %+v", inv.Autoscalers)
		}
		if hpa.Origin.Line != lineHPA || so.Origin.Line != lineSO || hpa.Target.Origin.Line != lineDeployment {
			t.Errorf("object lines %d %d %d, want %d %d %d", hpa.Origin.Line, so.Origin.Line, hpa.Target.Origin.Line, lineHPA, lineSO, lineDeployment)
		}
		if l := findingLine(t, hpa.Findings, check.InvalidAnnotation, "capreport.io/dead-time"); l != want.deadTime {
			t.Errorf("invalid dead-time at line %d, want %d", l, want.deadTime)
		}
		if l := findingLine(t, hpa.Findings, check.UnknownAnnotation, "capreport.io/deadtime"); l != want.typo {
			t.Errorf("unknown annotation at line %d, want %d", l, want.typo)
		}
		if l := findingLine(t, hpa.Findings, check.IgnoreWithoutReason, "signal-unknown"); l != want.ignore {
			t.Errorf("ignore without reason at line %d, want %d", l, want.ignore)
		}
		if l := findingLine(t, so.Findings, check.InvalidAnnotation, "partition count"); l != want.partitions {
			t.Errorf("invalid partitions at line %d, want %d", l, want.partitions)
		}
		if l := findingLine(t, so.Findings, check.KEDAPaused, "is paused"); l != want.paused {
			t.Errorf("paused at line %d, want %d", l, want.paused)
		}

		as := hpa.Assumptions
		if as.LatencyTarget.Value != 2*time.Second || as.LatencyTarget.From != FromAnnotation || as.LatencyTarget.Where == nil ||
			as.LatencyTarget.Where.File != "all.yaml" || as.LatencyTarget.Where.Line != want.latencyWhere {
			t.Errorf("latency target %+v where %+v, want all.yaml:%d", as.LatencyTarget, as.LatencyTarget.Where, want.latencyWhere)
		}
		if as.PodRate.Value != 50 || as.PodRate.From != FromAnnotation || as.PodRate.Where == nil ||
			as.PodRate.Where.File != "all.yaml" || as.PodRate.Where.Line != want.podRateWhere {
			t.Errorf("pod rate %+v where %+v, want all.yaml:%d (the target's annotation)", as.PodRate, as.PodRate.Where, want.podRateWhere)
		}
		if w := as.PodRate.Where; w != nil && (w.AnnotationLines != nil || w.Source != "all.yaml" || w.SourceType != render.SourcePlain) {
			t.Errorf("where %+v: want the target's origin without its annotation lines", w)
		}
		// The object's own origin is not moved.
		if hpa.Origin.Line != lineHPA || hpa.Target.Origin.Line != lineDeployment {
			t.Errorf("object origins moved: %+v %+v", hpa.Origin, hpa.Target.Origin)
		}
	}

	t.Run("annotation lines known", func(t *testing.T) {
		expect(t, renderAnnotatedStream(t), lines{
			deadTime: lineDeadTime, typo: lineDeadtimeTypo, ignore: lineIgnore,
			partitions: linePartitions, paused: linePaused,
			latencyWhere: lineLatencyTarget, podRateWhere: linePodRate,
		})
	})
	t.Run("unknown lines fall back to the object", func(t *testing.T) {
		objs := renderAnnotatedStream(t)
		for i := range objs {
			objs[i].Origin.AnnotationLines = nil
		}
		expect(t, objs, lines{
			deadTime: lineHPA, typo: lineHPA, ignore: lineHPA,
			partitions: lineSO, paused: lineSO,
			latencyWhere: lineHPA, podRateWhere: lineDeployment,
		})
	})
	t.Run("a key without a line falls back alone", func(t *testing.T) {
		objs := renderAnnotatedStream(t)
		for i := range objs {
			delete(objs[i].Origin.AnnotationLines, "capreport.io/dead-time")
		}
		inv := Extract(objs, nil)
		hpa := findAutoscaler(inv, "shop/HorizontalPodAutoscaler/web")
		if l := findingLine(t, hpa.Findings, check.InvalidAnnotation, "capreport.io/dead-time"); l != lineHPA {
			t.Errorf("invalid dead-time at line %d, want the object's %d", l, lineHPA)
		}
		if l := findingLine(t, hpa.Findings, check.UnknownAnnotation, "capreport.io/deadtime"); l != lineDeadtimeTypo {
			t.Errorf("unknown annotation at line %d, want %d", l, lineDeadtimeTypo)
		}
	})
}
