package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/capreport/capreport/check"
)

// maxGroupNames bounds the sources one grouped finding names.
const maxGroupNames = 50

// groupByCause folds the findings that share a Cause and come from more
// than one source into one finding that names the sources with counts:
// a dependency that 116 charts lack is one finding, not 116, and the
// renders that failed for lack of it join it. Findings without a Cause,
// or whose cause touches one source, are kept as they are.
func groupByCause(in []check.Finding) []check.Finding {
	members := map[string][]int{}
	for i, f := range in {
		if f.Cause != "" {
			members[f.Cause] = append(members[f.Cause], i)
		}
	}
	out := make([]check.Finding, 0, len(in))
	done := map[string]bool{}
	for _, f := range in {
		idx := members[f.Cause]
		if f.Cause == "" || distinctSources(in, idx) < 2 {
			out = append(out, f)
			continue
		}
		if done[f.Cause] {
			continue
		}
		done[f.Cause] = true
		out = append(out, foldGroup(in, idx))
	}
	return out
}

func distinctSources(in []check.Finding, idx []int) int {
	seen := map[string]bool{}
	for _, i := range idx {
		seen[in[i].Source] = true
	}
	return len(seen)
}

// foldGroup makes one finding of a group: the most specific check (a
// render failure is the consequence, not the cause), the highest
// severity, and the sources with how many findings each had.
func foldGroup(in []check.Finding, idx []int) check.Finding {
	first := in[idx[0]]
	g := check.Finding{Check: check.RenderFailed, Severity: check.SeverityInfo, Location: first.Location, Cause: first.Cause}
	counts := map[string]int{}
	failed := map[string]bool{}
	var order []string
	for _, i := range idx {
		f := in[i]
		if f.Check != check.RenderFailed && g.Check == check.RenderFailed {
			g.Check = f.Check
		}
		if severityRank(f.Severity) > severityRank(g.Severity) {
			g.Severity = f.Severity
		}
		if counts[f.Source] == 0 {
			order = append(order, f.Source)
		}
		counts[f.Source]++
		if f.Check == check.RenderFailed {
			failed[f.Source] = true
		}
	}
	sort.Strings(order)
	names := make([]string, 0, len(order))
	for _, s := range order {
		if len(names) == maxGroupNames {
			names = append(names, fmt.Sprintf("and %d more", len(order)-maxGroupNames))
			break
		}
		n := s
		if counts[s] > 1 {
			n += fmt.Sprintf(" (%d findings)", counts[s])
		}
		if failed[s] {
			n += " (failed to render)"
		}
		names = append(names, n)
	}
	msg := fmt.Sprintf("%s: %d sources", first.Cause, len(order))
	if len(failed) > 0 {
		msg += fmt.Sprintf(", %d of which failed to render because of it", len(failed))
	}
	g.Message = msg + ": " + strings.Join(names, ", ")
	return g
}

func severityRank(s string) int {
	switch s {
	case check.SeverityError:
		return 3
	case check.SeverityWarning:
		return 2
	case check.SeverityInfo:
		return 1
	}
	return 0
}
