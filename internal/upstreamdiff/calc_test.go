package upstreamdiff

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/internal/upstreamdiff/podautoscaler"
)

// podCase is the input shared by the groups that list pods.
type podCase struct {
	Now        time.Time
	Calc       hpa.Calculator
	Current    int32
	Resource   string
	Container  string
	Target     int64
	Pods       []hpa.Pod
	Metrics    hpa.PodMetrics
	UsageValue int64
	Series     []int64
}

func newPodCase(r *rand.Rand, now time.Time) (podCase, gen) {
	g := gen{r: r, now: now}
	c := podCase{Now: now, Calc: g.calculator(), Current: g.replicas(), Resource: g.resource()}
	c.Pods = g.pods(c.Calc)
	c.Metrics = g.metrics(c.Pods)
	return c, g
}

// upstream builds the calculator upstream would use for this case.
func (c podCase) upstream() (*podautoscaler.ReplicaCalculator, podautoscaler.Tolerances) {
	client := fakeMetrics{pods: toMetricsInfo(c.Pods, c.Metrics), object: c.UsageValue, external: c.Series}
	rc := podautoscaler.NewReplicaCalculator(client, fakeLister(toV1Pods(c.Pods, c.Now)), c.Calc.CPUInitializationPeriod, c.Calc.DelayOfInitialReadinessStatus)
	return rc, podautoscaler.NewTolerances(c.Calc.Tolerances.ScaleDown, c.Calc.Tolerances.ScaleUp)
}

// answer is what every Get*Replicas returns, less the timestamp (which
// comes from the metrics client, not the calculation).
type answer struct {
	Replicas    int32
	Utilization int32 `json:",omitempty"`
	Usage       int64
	Err         string
}

// sameAnswer compares errors by text only when the calculation produced
// them: errors from the metrics client are worded by the caller on each
// side (upstream names the metric, the port cannot), so for those only
// their presence is compared.
func sameAnswer(c podCase, clientFailed bool, port, up answer) string {
	if clientFailed && port.Err != "" && up.Err != "" {
		port.Err, up.Err = "client error", "client error"
	}
	return diff(c, port, up)
}

func resourceCase(withContainer bool) caseFunc {
	return func(r *rand.Rand, now time.Time) string {
		c, g := newPodCase(r, now)
		c.Target = int64(g.between(1, 200))
		if withContainer {
			names := append(slices.Clone(containerNames), "absent")
			c.Container = names[g.intn(len(names))]
		}
		res, err := c.Calc.ResourceReplicasDetail(c.Current, int32(c.Target), c.Resource, c.Container, c.Pods, c.Metrics, now)
		port := answer{res.Replicas, res.Utilization, res.RawAverage, errText(err)}
		rc, tol := c.upstream()
		n, util, raw, _, err := rc.GetResourceReplicas(context.Background(), c.Current, int32(c.Target), v1.ResourceName(c.Resource), tol, namespace, labels.Everything(), c.Container)
		return sameAnswer(c, len(c.Metrics) == 0, port, answer{n, util, raw, errText(err)})
	}
}

func rawResourceCase(r *rand.Rand, now time.Time) string {
	c, g := newPodCase(r, now)
	c.Target = g.value() + 1
	if g.chance(0.5) {
		c.Container = []string{"app", "side", "absent"}[g.intn(3)]
	}
	n, usage, err := c.Calc.RawResourceReplicas(c.Current, c.Target, c.Resource, c.Container, c.Pods, c.Metrics, now)
	port := answer{Replicas: n, Usage: usage, Err: errText(err)}
	rc, tol := c.upstream()
	n, usage, _, err = rc.GetRawResourceReplicas(context.Background(), c.Current, c.Target, v1.ResourceName(c.Resource), tol, namespace, labels.Everything(), c.Container)
	return sameAnswer(c, len(c.Metrics) == 0, port, answer{Replicas: n, Usage: usage, Err: errText(err)})
}

func podsMetricCase(r *rand.Rand, now time.Time) string {
	c, g := newPodCase(r, now)
	c.Resource = ""
	c.Target = g.value() + 1
	n, usage, err := c.Calc.MetricReplicas(c.Current, c.Target, c.Pods, c.Metrics, now)
	port := answer{Replicas: n, Usage: usage, Err: errText(err)}
	rc, tol := c.upstream()
	n, usage, _, err = rc.GetMetricReplicas(c.Current, c.Target, "qps", tol, namespace, labels.Everything(), labels.Everything())
	return sameAnswer(c, len(c.Metrics) == 0, port, answer{Replicas: n, Usage: usage, Err: errText(err)})
}

var objectRef = &autoscalingv2.CrossVersionObjectReference{Kind: "Service", Name: "svc"}

func objectValueCase(r *rand.Rand, now time.Time) string {
	c, g := newPodCase(r, now)
	c.Resource, c.Metrics = "", nil
	c.Target, c.UsageValue = g.value()+1, g.value()
	n, usage, err := c.Calc.ObjectMetricReplicas(c.Current, c.UsageValue, c.Target, c.Pods)
	port := answer{Replicas: n, Usage: usage, Err: errText(err)}
	rc, tol := c.upstream()
	n, usage, _, err = rc.GetObjectMetricReplicas(c.Current, c.Target, "qps", tol, namespace, objectRef, labels.Everything(), labels.Everything())
	return sameAnswer(c, false, port, answer{Replicas: n, Usage: usage, Err: errText(err)})
}

// objectAverageCase draws no pods: upstream's per-pod object path reads
// only the status replicas, which Current stands for here (0 included).
func objectAverageCase(r *rand.Rand, now time.Time) string {
	g := gen{r: r, now: now}
	c := podCase{Now: now, Calc: g.calculator(), Current: g.replicas(), Target: g.value() + 1, UsageValue: g.value()}
	n, usage, err := c.Calc.ObjectPerPodMetricReplicas(c.Current, c.UsageValue, c.Target)
	port := answer{Replicas: n, Usage: usage, Err: errText(err)}
	rc, tol := c.upstream()
	n, usage, _, err = rc.GetObjectPerPodMetricReplicas(c.Current, c.Target, "qps", tol, namespace, objectRef, labels.Everything())
	return sameAnswer(c, false, port, answer{Replicas: n, Usage: usage, Err: errText(err)})
}

func externalValueCase(r *rand.Rand, now time.Time) string {
	c, g := newPodCase(r, now)
	c.Resource, c.Metrics = "", nil
	c.Target, c.Series = g.value()+1, g.series()
	n, usage, err := c.Calc.ExternalMetricReplicas(c.Current, c.Series, c.Target, c.Pods)
	port := answer{Replicas: n, Usage: usage, Err: errText(err)}
	rc, tol := c.upstream()
	n, usage, _, err = rc.GetExternalMetricReplicas(c.Current, c.Target, "queue", tol, namespace, nil, labels.Everything())
	return sameAnswer(c, len(c.Series) == 0, port, answer{Replicas: n, Usage: usage, Err: errText(err)})
}

func externalPerPodCase(r *rand.Rand, now time.Time) string {
	g := gen{r: r, now: now}
	c := podCase{Now: now, Calc: g.calculator(), Current: g.replicas(), Target: g.value() + 1, Series: g.series()}
	n, usage, err := c.Calc.ExternalPerPodMetricReplicas(c.Current, c.Series, c.Target)
	port := answer{Replicas: n, Usage: usage, Err: errText(err)}
	rc, tol := c.upstream()
	n, usage, _, err = rc.GetExternalPerPodMetricReplicas(c.Current, c.Target, "queue", tol, namespace, nil)
	return sameAnswer(c, len(c.Series) == 0, port, answer{Replicas: n, Usage: usage, Err: errText(err)})
}

// groupPodsCase compares the grouping itself, so that a difference shows
// where it starts rather than only through a replica count.
func groupPodsCase(r *rand.Rand, now time.Time) string {
	c, _ := newPodCase(r, now)
	pg := hpa.GroupPods(c.Pods, c.Metrics, c.Resource, c.Calc.CPUInitializationPeriod, c.Calc.DelayOfInitialReadinessStatus, now)
	port := [4]any{pg.ReadyCount, expandSet(c.Pods, pg.Unready), expandSet(c.Pods, pg.Missing), expandSet(c.Pods, pg.Ignored)}
	v1pods := toV1Pods(c.Pods, now)
	ready, unready, missing, ignored := podautoscaler.GroupPods(v1pods, toMetricsInfo(c.Pods, c.Metrics), v1.ResourceName(c.Resource), c.Calc.CPUInitializationPeriod, c.Calc.DelayOfInitialReadinessStatus)
	up := [4]any{int64(ready), inListOrder(v1pods, unready), inListOrder(v1pods, missing), inListOrder(v1pods, ignored)}
	return diff(c, port, up)
}

// inListOrder orders a name set as the pod list does.
func inListOrder(pods []*v1.Pod, set sets.Set[string]) []string {
	out := []string{}
	for _, p := range pods {
		if set.Has(p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}

func TestUpstreamCalculator(t *testing.T) {
	runGroup(t, "ResourceUtilization", resourceCase(false))
	runGroup(t, "ContainerResourceUtilization", resourceCase(true))
	runGroup(t, "RawResource", rawResourceCase)
	runGroup(t, "PodsMetric", podsMetricCase)
	runGroup(t, "ObjectValue", objectValueCase)
	runGroup(t, "ObjectAverageValue", objectAverageCase)
	runGroup(t, "ExternalValue", externalValueCase)
	runGroup(t, "ExternalPerPod", externalPerPodCase)
	runGroup(t, "GroupPods", groupPodsCase)
}
