package kedadiff

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"

	"github.com/capreport/capreport/check"
)

// TestKEDADiff compares capreport's conversion with KEDA's for whole
// ScaledObjects drawn by gen: the HPA's name and spec (target, bounds,
// behavior, every metric with its name, selector and target), or that no
// HPA is created.
func TestKEDADiff(t *testing.T) {
	k, err := newKEDASide()
	if err != nil {
		t.Fatal(err)
	}
	ep := endpoints{kafka: startKafka(t), redis: startRedis(t)}
	ctx := context.Background()
	for _, g := range []struct {
		name     string
		breakage float64
	}{{"ScaledObject", 1}, {"MostlyValid", 0.1}} {
		seen := map[string]int{}
		runGroup(t, g.name, func(r *rand.Rand) (string, string) {
			so := gen{r: r, ep: ep, breakage: g.breakage}.scaledObject()
			kd := k.derive(ctx, so)
			tally(seen, kd)
			return compare(so, capreportSide(so), kd)
		})
		t.Logf("%s: KEDA's answers: %v", g.name, seen)
	}
}

// tally counts what KEDA did with the cases, so that the log shows what
// the comparisons covered: HPAs created, with a composite metric, with
// more than 12 metrics, and refusals by stage.
func tally(seen map[string]int, k outcome) {
	if k.Refused {
		stage, _, _ := strings.Cut(k.Why, ":")
		seen["refused at "+stage]++
		if os.Getenv("KEDADIFF_WHY") != "" {
			seen[k.Why]++
		}
		return
	}
	seen["HPA"]++
	if len(k.Spec.Metrics) > 12 {
		seen["HPA with more than 12 metrics"]++
	}
	for _, m := range k.Spec.Metrics {
		if m.External != nil && m.External.Metric.Name == "composite-metric" {
			seen["HPA with a composite metric"]++
		}
		if m.Resource != nil || m.ContainerResource != nil {
			seen["HPA with a cpu/memory metric"]++
			break
		}
	}
}

// compare returns "" when both sides create the same HPA or both create
// none, else the case and both answers with their reasons, and which
// deliberate difference it is, if any.
func compare(so *kedav1alpha1.ScaledObject, c, k outcome) (string, string) {
	d := diff(so, c, k)
	switch {
	case d == "":
		return "", ""
	case strings.HasPrefix(d, agree):
		return d + "\ncapreport why: " + c.Why + "\nkeda why:      " + k.Why, ""
	}
	return d + "\ncapreport why: " + c.Why + "\nkeda why:      " + k.Why, deliberate(c, k)
}

// deliberate names the documented difference (README, "Deliberate
// differences") that a disagreement is, or "". Each is recognized by
// both sides' reasons, so that any other disagreement in the same case
// still counts as a mismatch.
func deliberate(c, k outcome) string {
	switch {
	case k.Refused && !c.Refused && connectionRefusal.MatchString(k.Why):
		return "connection-parameter"
	case !k.Refused && !c.Refused && sameButOrder(c, k):
		return "metric-order"
	case k.Refused && !c.Refused && strings.Contains(k.Why, "The 'type' setting is DEPRECATED") &&
		slices.Contains(c.Flags, check.KEDADeprecated):
		return "legacy-metadata-type"
	case c.Refused && !k.Refused && hugeNumber(c.Why):
		return "number-beyond-1e12"
	}
	return ""
}

// connectionRefusal matches KEDA's refusals of a trigger that does not say
// where its scaler connects: a server, host, broker, account or region.
var connectionRefusal = regexp.MustCompile(`missing required parameter "(serverAddress|host|natsServerMonitoringEndpoint|awsRegion)"|` +
	`no addresses or hosts given|no bootstrapServers given|no account name or id given`)

// sameButOrder reports whether the two HPAs differ only in the order of
// their metrics, where KEDA's order is not capreport's: after a composite
// metric (which KEDA puts after the Resource metrics) or from 13 metrics
// on (where KEDA's sort.Slice is not stable).
func sameButOrder(c, k outcome) bool {
	n := len(k.Spec.Metrics)
	composite := slices.ContainsFunc(k.Spec.Metrics, func(m autoscalingv2.MetricSpec) bool {
		return m.External != nil && m.External.Metric.Name == "composite-metric"
	})
	if n <= 12 && !composite {
		return false
	}
	return dump(inOneOrder(k)) == dump(inOneOrder(c))
}

// inOneOrder is o with its metrics sorted by type and then by their JSON.
func inOneOrder(o outcome) outcome {
	spec := *o.Spec
	spec.Metrics = slices.Clone(o.Spec.Metrics)
	slices.SortStableFunc(spec.Metrics, func(a, b autoscalingv2.MetricSpec) int {
		if c := strings.Compare(string(a.Type), string(b.Type)); c != 0 {
			return c
		}
		return strings.Compare(dump(a), dump(b))
	})
	o.Spec = &spec
	return o
}

// hugeRefusal finds the metadata value capreport's reason quotes when it
// refuses a number it considers out of range.
var hugeRefusal = regexp.MustCompile(`metadata\.\w+ "([^"]*)" is (?:out of range|not a number)`)

// hugeNumber reports whether capreport refused a metadata number beyond
// ±1e12 (its bound for floats; integers stop at ±2^40, about 1.1e12).
func hugeNumber(why string) bool {
	m := hugeRefusal.FindStringSubmatch(why)
	if m == nil {
		return false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(m[1]), 64)
	return err == nil && math.Abs(f) > 1e12
}
