package analyze

import (
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
)

// An annotation outside its documented range is a finding naming the value
// and the range at the annotation's file:line, and is not used: the model
// gets the default (a 1,000,000-hour window used to allocate a sample per
// second of it; a 1,000,000-hour dead time on a KEDA consumer passed).
func TestAnnotationOutOfRange(t *testing.T) {
	const doc = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  template:
    spec:
      containers: [{name: app, resources: {requests: {cpu: "1"}}}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: shop
  annotations:
    capreport.io/metric-window: "1000000h"
    capreport.io/dead-time: "1000000h"
    capreport.io/demand: "1e308"
    capreport.io/overload: "1e9x"
    capreport.io/pod-rate: "1e-300"
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 10
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]
`
	objs, err := decodeObjects("all.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	inv := Extract(objs, nil)
	a := findAutoscaler(inv, "shop/HorizontalPodAutoscaler/web")
	if a == nil {
		t.Fatal("no autoscaler")
	}
	as := a.Assumptions
	if as.MetricWindow.Value != DefaultMetricWindow || as.DeadTime.Value != DefaultDeadTime ||
		as.Demand.Value != 0 || as.PodRate.From != FromDefault || as.Overload.From != FromDefault {
		t.Errorf("out-of-range values used: %+v", as)
	}
	for key, want := range map[string]string{
		"capreport.io/metric-window": `"1000000h" is outside the range [1s, 15m]`,
		"capreport.io/dead-time":     `"1000000h" is outside the range [1s, 1h]`,
		"capreport.io/demand":        `"1e308" is outside the range [0.001, 1000000000]`,
		"capreport.io/overload":      "outside the range (1, 1000]",
		"capreport.io/pod-rate":      `"1e-300" is outside the range [0.001, 1000000]`,
	} {
		found := false
		for _, f := range a.Findings {
			if f.Check == check.InvalidAnnotation && strings.Contains(f.Message, key) {
				found = true
				if !strings.Contains(f.Message, want) {
					t.Errorf("%s: %q lacks %q", key, f.Message, want)
				}
				if f.File() != "all.yaml" || f.Line() == 0 {
					t.Errorf("%s: at %s:%d", key, f.File(), f.Line())
				}
			}
		}
		if !found {
			t.Errorf("no %s finding for %s in %+v", check.InvalidAnnotation, key, a.Findings)
		}
	}
}
