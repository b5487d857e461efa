package analyze

import (
	"fmt"
	"strings"

	"github.com/capreport/capreport/check"
)

// maxListedDefaults bounds the autoscalers one default finding names.
const maxListedDefaults = 20

// defaultFindings raises one finding per assumption left at its built-in
// default, listing the autoscalers whose bill rests on it: a dead time or
// a pod rate is never silently invented, and a repository without
// annotations gets two findings, not two per workload. A default matters
// only where a bill rests on it (saturating and backlog signals, priced);
// an autoscaler that ignores assumption-default is left out.
func defaultFindings(as []Autoscaler) []check.Finding {
	var dead, rate []*Autoscaler
	for i := range as {
		a := &as[i]
		if a.Unpriced != "" || (a.Signal != SignalSaturating && a.Signal != SignalBacklog) {
			continue
		}
		if _, ignored := a.Ignores[check.AssumptionDefault]; ignored {
			continue
		}
		if a.Assumptions.DeadTime.From == FromDefault {
			dead = append(dead, a)
		}
		if a.Assumptions.PodRate.From == FromDefault {
			rate = append(rate, a)
		}
	}
	var fs []check.Finding
	if len(dead) > 0 {
		fs = append(fs, check.Finding{Check: check.AssumptionDefault, Severity: check.SeverityWarning,
			Message: fmt.Sprintf("dead time not given for %s; each uses the default %s: %s",
				countOf(len(dead)), dead[0].Assumptions.DeadTime.Value, listIDs(dead)),
			Remediation: "measure it with capreport calibrate --prometheus URL, or set defaults.deadTime or workloads[].deadTime in .capreport.yaml, or annotate capreport.io/dead-time (e.g. \"60s\")"})
	}
	if len(rate) > 0 {
		fs = append(fs, check.Finding{Check: check.AssumptionDefault, Severity: check.SeverityWarning,
			Message: fmt.Sprintf("pod rate not given for %s; each uses the default (%g/s for a saturating signal, %g/s otherwise): %s",
				countOf(len(rate)), DefaultPodRateSaturating, DefaultPodRateOther, listIDs(rate)),
			Remediation: "measure it with capreport calibrate --prometheus URL, or set workloads[].podRate in .capreport.yaml, or annotate capreport.io/pod-rate (requests or messages per second one pod serves)"})
	}
	return fs
}

func countOf(n int) string {
	if n == 1 {
		return "1 autoscaler"
	}
	return fmt.Sprintf("%d autoscalers", n)
}

// listIDs names the autoscalers, the first maxListedDefaults of them.
func listIDs(as []*Autoscaler) string {
	ids := make([]string, 0, min(len(as), maxListedDefaults))
	for _, a := range as[:min(len(as), maxListedDefaults)] {
		ids = append(ids, a.ID)
	}
	s := strings.Join(ids, ", ")
	if n := len(as) - len(ids); n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	return s
}
