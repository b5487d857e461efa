// Package genrepo writes a synthetic GitOps repository with any number of
// autoscalers, for the pipeline benchmarks: plain manifests, a mix of CPU
// HPAs (varied targets, limits and dead times) and KEDA Kafka consumers
// (varied thresholds and windows), every one annotated so that it is priced.
package genrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// perFile autoscalers go in one manifest file, as teams group them.
const perFile = 10

// Write creates n autoscalers (with their Deployments) under dir.
func Write(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i%10 < 7 {
			cpuApp(&b, i)
		} else {
			consumer(&b, i)
		}
		if (i+1)%perFile == 0 || i == n-1 {
			name := filepath.Join(dir, fmt.Sprintf("team-%04d.yaml", i/perFile))
			if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
				return err
			}
			b.Reset()
		}
	}
	return nil
}

func cpuApp(b *strings.Builder, i int) {
	targets := []int{50, 60, 70, 80}
	limits := []string{"1", "1", "2", "1500m"}
	fmt.Fprintf(b, `apiVersion: apps/v1
kind: Deployment
metadata: {name: app-%[1]d, namespace: ns-%[2]d}
spec:
  replicas: %[3]d
  selector: {matchLabels: {app: app-%[1]d}}
  template:
    metadata: {labels: {app: app-%[1]d}}
    spec:
      containers:
        - name: app
          image: example/app:%[1]d
          resources: {requests: {cpu: "1"}, limits: {cpu: "%[4]s"}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: app-%[1]d
  namespace: ns-%[2]d
  annotations:
    capreport.io/dead-time: %[5]ds
    capreport.io/pod-rate: "100"
    capreport.io/latency-target: 5m
    capreport.io/overload: 3x,10x,30x
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: app-%[1]d}
  minReplicas: %[3]d
  maxReplicas: 5000
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: %[6]d}}
---
`, i, i%20, 3+i%17, limits[i%len(limits)], 30+15*(i%7), targets[i%len(targets)])
}

func consumer(b *strings.Builder, i int) {
	fmt.Fprintf(b, `apiVersion: apps/v1
kind: Deployment
metadata: {name: consumer-%[1]d, namespace: ns-%[2]d}
spec:
  replicas: 5
  selector: {matchLabels: {app: consumer-%[1]d}}
  template:
    metadata: {labels: {app: consumer-%[1]d}}
    spec:
      containers: [{name: c, image: example/consumer:%[1]d, resources: {requests: {cpu: 250m}}}]
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: consumer-%[1]d
  namespace: ns-%[2]d
  annotations:
    capreport.io/dead-time: 90s
    capreport.io/pod-rate: "10"
    capreport.io/demand: "50"
    capreport.io/latency-target: 3m
spec:
  scaleTargetRef: {name: consumer-%[1]d}
  minReplicaCount: 1
  maxReplicaCount: 200
  advanced:
    horizontalPodAutoscalerConfig:
      behavior:
        scaleDown: {stabilizationWindowSeconds: %[4]d}
  triggers:
    - type: kafka
      metadata: {bootstrapServers: "kafka:9092", consumerGroup: g%[1]d, topic: t%[1]d, lagThreshold: "%[3]d"}
---
`, i, i%20, []int{10, 100, 600, 1500}[i%4], []int{60, 120, 300, 600}[(i/4)%4])
}
