package hpa

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkResourceReplicas50Cohorts is one sync of a simulated fleet of
// 50 orders (cohorts), half of them still pending.
func BenchmarkResourceReplicas50Cohorts(b *testing.B) {
	var pods []Pod
	metrics := PodMetrics{}
	var current int32
	for i := range 50 {
		p := cohort(fmt.Sprintf("order-%d", i), int32(10+i), 'R', 1000)
		if i%2 == 1 {
			p.Phase = PodPending
		} else {
			metrics[p.Name] = PodMetric{Value: 900, Timestamp: testNow, Window: 30 * time.Second}
		}
		pods = append(pods, p)
		current += p.Count
	}
	calc := NewCalculator(DefaultConfig(), nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := calc.ResourceReplicas(current, 50, "cpu", "", pods, metrics, testNow); err != nil {
			b.Fatal(err)
		}
	}
}
