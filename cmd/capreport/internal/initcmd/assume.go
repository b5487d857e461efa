package initcmd

import "github.com/capreport/capreport/analyze"

// The assumptions init offers to fill in: what each means, which ones a
// bill reads, and which an autoscaler still takes from the defaults.

// assumptionHelp documents each key the template offers, in order.
var assumptionHelp = []struct{ key, example, help string }{
	{"deadTime", "90s", "order of a pod → its first served request or message"},
	{"podRate", "100", "requests (or messages) per second one pod serves at 100% of its CPU request"},
	{"latencyTarget", "30s", "the longest a request or message may wait"},
	{"overload", "[3x, 10x, 30x]", "design overloads of the Size row"},
	{"demand", "500", "demand per second before the step (default: baseline pods at target)"},
	{"step", "4x", "demand step of the Time row"},
	{"metricWindow", "30s", "CPU metric window"},
	{"saturatedEfficiency", "0.8", "fraction of full rate a saturated pod still serves"},
}

// relevant lists the assumptions each signal's bill reads: the Size row the
// overloads, metric window and efficiency; the Time row the demand step.
var relevant = map[analyze.Signal][]string{
	analyze.SignalSaturating: {"deadTime", "podRate", "latencyTarget", "overload", "demand", "metricWindow", "saturatedEfficiency"},
	analyze.SignalBacklog:    {"deadTime", "podRate", "latencyTarget", "demand", "step"},
}

// missingAssumptions lists the keys an autoscaler's bill still takes from
// the built-in defaults (none for a signal that is not priced).
func missingAssumptions(a analyze.Autoscaler) map[string]bool {
	as := a.Assumptions
	from := map[string]string{
		"deadTime": as.DeadTime.From, "podRate": as.PodRate.From, "latencyTarget": as.LatencyTarget.From,
		"overload": as.Overload.From, "demand": as.Demand.From, "step": as.Step.From,
		"metricWindow": as.MetricWindow.From, "saturatedEfficiency": as.SaturatedEfficiency.From,
	}
	m := map[string]bool{}
	for _, key := range relevant[a.Signal] {
		if from[key] == analyze.FromDefault {
			m[key] = true
		}
	}
	return m
}
