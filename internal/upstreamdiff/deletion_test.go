package upstreamdiff

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/controller"

	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/internal/replicaset"
)

// rankedTime draws a ready or creation time: zero (unknown), shared with
// another pod, on or beside a power-of-two age (where the logarithmic
// buckets change), in the future, or anywhere in the last day.
func (g gen) rankedTime(pool []time.Time) time.Time {
	switch g.intn(6) {
	case 0:
		return time.Time{}
	case 1:
		return pool[g.intn(len(pool))]
	case 2:
		return g.now.Add(-time.Duration(1<<g.between(30, 46)) + time.Duration(g.between(-1, 1)))
	case 3:
		return g.now.Add(time.Duration(g.between(0, 60)) * time.Second)
	}
	return g.secondsAgo(86400)
}

func (g gen) rankedPod(i int, pool []time.Time) replicaset.RankedPod {
	return replicaset.RankedPod{
		UID:                fmt.Sprintf("uid-%d", g.intn(4)*10+i),
		Assigned:           g.chance(0.8),
		Phase:              []hpa.PodPhase{hpa.PodRunning, hpa.PodRunning, hpa.PodPending, hpa.PodUnknown}[g.intn(4)],
		Ready:              g.chance(0.7),
		ReadySince:         g.rankedTime(pool),
		DeletionCost:       []int32{0, 0, 0, -5, 10, int32(g.between(-100, 100))}[g.intn(6)],
		Rank:               g.between(0, 2),
		MaxRestarts:        int32(g.between(0, 2)),
		MaxSidecarRestarts: int32(g.between(0, 2)),
		Created:            g.rankedTime(pool),
	}
}

// toRankedV1 builds a pod that upstream's ActivePodsWithRanks reads as the
// port's RankedPod: the restart counts are the highest of several
// statuses, and a regular init container's larger count must not matter.
func toRankedV1(p replicaset.RankedPod, node string) *v1.Pod {
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(p.UID), CreationTimestamp: metav1.NewTime(p.Created)},
		Spec:       v1.PodSpec{InitContainers: []v1.Container{{Name: "init"}, {Name: "sidecar", RestartPolicy: &always}}},
		Status: v1.PodStatus{
			Phase: v1.PodPhase(p.Phase),
			ContainerStatuses: []v1.ContainerStatus{
				{Name: "a", RestartCount: p.MaxRestarts}, {Name: "b", RestartCount: max(0, p.MaxRestarts-1)},
			},
			InitContainerStatuses: []v1.ContainerStatus{
				{Name: "init", RestartCount: 7}, {Name: "sidecar", RestartCount: p.MaxSidecarRestarts},
			},
		},
	}
	if p.Assigned {
		pod.Spec.NodeName = node
	}
	if p.DeletionCost != 0 {
		pod.Annotations = map[string]string{"controller.kubernetes.io/pod-deletion-cost": strconv.Itoa(int(p.DeletionCost))}
	}
	status := v1.ConditionFalse
	if p.Ready {
		status = v1.ConditionTrue
	}
	pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: status, LastTransitionTime: metav1.NewTime(p.ReadySince)}}
	return pod
}

// deletionCase compares DeleteFirst with ActivePodsWithRanks.Less on every
// ordered pair of a few pods (the feature gates at their v1.34 defaults).
func deletionCase(r *rand.Rand, now time.Time) string {
	g := gen{r: r, now: now}
	if g.chance(0.1) {
		now = time.Time{}
	}
	pool := []time.Time{g.secondsAgo(3600), g.secondsAgo(60)}
	pods := make([]replicaset.RankedPod, g.between(2, 5))
	s := controller.ActivePodsWithRanks{Now: metav1.NewTime(now)}
	for i := range pods {
		pods[i] = g.rankedPod(i, pool)
		s.Pods = append(s.Pods, toRankedV1(pods[i], []string{"node-a", "node-b"}[g.intn(2)]))
		s.Rank = append(s.Rank, pods[i].Rank)
	}
	var port, up []bool
	for i := range pods {
		for j := range pods {
			port = append(port, replicaset.DeleteFirst(pods[i], pods[j], now))
			up = append(up, s.Less(i, j))
		}
	}
	return diff(map[string]any{"now": now, "pods": pods}, port, up)
}

func TestUpstreamDeletionOrder(t *testing.T) {
	runGroup(t, "DeletionOrder", deletionCase)
}
