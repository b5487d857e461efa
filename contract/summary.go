package contract

import (
	"slices"
	"strings"

	"github.com/capreport/capreport/check"
)

// SortByID orders workloads by id: the JSON contract is stable for diffs
// and merges; renderers order their views worst first (VerdictRank).
func SortByID(ws []Workload) {
	slices.SortStableFunc(ws, func(a, b Workload) int { return strings.Compare(a.ID, b.ID) })
}

// VerdictRank orders verdicts worst first: fail, warn, pass, unpriced; an
// unknown verdict sorts last so that a producer bug never hides a failure.
func VerdictRank(v string) int {
	switch v {
	case VerdictFail:
		return 0
	case VerdictWarn:
		return 1
	case VerdictPass:
		return 2
	case VerdictUnpriced:
		return 3
	}
	return 4
}

// Summarize counts a report's workloads by verdict and its live (not
// ignored) error and warning findings, the workloads' and the report's own.
func Summarize(r *Report) Summary {
	s := Summary{Autoscalers: len(r.Workloads)}
	count := func(fs []Finding) {
		for _, f := range fs {
			if f.Ignored {
				continue
			}
			if f.Check == check.GitOpsNotFollowed {
				s.NotFollowed++
			}
			switch f.Severity {
			case check.SeverityError:
				s.Errors++
			case check.SeverityWarning:
				s.Warnings++
			}
		}
	}
	for _, w := range r.Workloads {
		switch w.Verdict {
		case VerdictPass:
			s.Pass++
		case VerdictWarn:
			s.Warn++
		case VerdictFail:
			s.Fail++
		default:
			s.Unpriced++
		}
		count(w.Findings)
	}
	count(r.Findings)
	return s
}

// PathBase is the directory the report's paths are relative to: its
// repository root, else the scanned root.
func PathBase(r Report) string {
	if r.RepoRoot != "" {
		return r.RepoRoot
	}
	return r.Root
}
