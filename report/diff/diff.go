// Package diff compares two capreport reports (the base and the head of a
// pull request) and renders what changed: the pull-request comment, JSON and
// text. It is pure: reports in, values and bytes out; it never prices
// anything, it only compares what rules already put in the reports.
package diff

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/capreport/capreport/contract"
)

// SchemaVersion is the version of the diff JSON shape. Bump it on any change
// that is not purely additive.
const SchemaVersion = "capreport.io/diff/v1"

// Status of one listed autoscaler.
const (
	StatusAdded   = "added"
	StatusRemoved = "removed"
	StatusChanged = "changed"
)

// Impact orders the listed autoscalers for a reviewer, worst first.
const (
	// ImpactNewFailure: fails in head and did not fail in base (or is new).
	ImpactNewFailure = "new-failure"
	// ImpactFixed: failed in base and passes or warns in head.
	ImpactFixed = "fixed"
	// ImpactWorse: the verdict got worse without reaching fail (pass → warn).
	ImpactWorse = "worse"
	// ImpactFailing: failed before and still fails, with changed figures.
	ImpactFailing = "failing"
	ImpactAdded   = "added"
	ImpactChanged = "changed"
	ImpactRemoved = "removed"
	// ImpactBetter: the verdict improved.
	ImpactBetter = "better"
)

// impactOrder is the reading order of the comment, by transition: what the
// pull request breaks, then what it fixes, then what moved without
// changing a failing verdict; figures alone last.
var impactOrder = []string{ImpactNewFailure, ImpactFixed, ImpactWorse, ImpactFailing, ImpactBetter, ImpactAdded, ImpactRemoved, ImpactChanged}

// Result is the comparison of a base and a head report; every format is
// rendered from it, and it marshals to the versioned JSON shape.
type Result struct {
	SchemaVersion string `json:"schemaVersion"`
	Base          Side   `json:"base"`
	Head          Side   `json:"head"`
	Counts        Counts `json:"counts"`
	// Changes lists only the autoscalers that changed, in reading order:
	// new failures first, then by impact, then the largest change, then id.
	Changes []Change `json:"changes"`
}

// Side identifies one of the two compared reports.
type Side struct {
	Root        string           `json:"root"`
	Tool        contract.Tool    `json:"tool"`
	GeneratedAt string           `json:"generatedAt,omitempty"`
	Summary     contract.Summary `json:"summary"`
}

// Counts says how many autoscalers fall in each bucket; unchanged ones are
// only counted here, never listed.
type Counts struct {
	Base      int `json:"base"`
	Head      int `json:"head"`
	Changed   int `json:"changed"` // listed: added + removed + modified
	Added     int `json:"added"`
	Removed   int `json:"removed"`
	Modified  int `json:"modified"`
	Unchanged int `json:"unchanged"`
	// NewFailures fail in head and did not fail in base.
	NewFailures int `json:"newFailures"`
	// Fixed failed in base and do not fail in head (or were removed).
	Fixed int `json:"fixed"`
	// Transitions counts the listed autoscalers by Impact, the comment's
	// headline: "3 newly failing, 100 fixed, 17 with changed figures".
	Transitions map[string]int `json:"transitions"`
}

// Change is one autoscaler that differs between base and head.
type Change struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Impact string `json:"impact"`
	// VerdictBefore / VerdictAfter are "" on the side where the autoscaler
	// does not exist.
	VerdictBefore string `json:"verdictBefore"`
	VerdictAfter  string `json:"verdictAfter"`
	NewFailure    bool   `json:"newFailure"`
	// Summary is the change in words, e.g. "30x overload: 4 → 15 rounds,
	// +22 min to capacity; verdict pass → fail".
	Summary string `json:"summary"`
	// KeyBefore / KeyAfter are the headline figure of the bill on each side
	// ("4 rounds at 30x", "hunts 6..35 pods"), "" where absent.
	KeyBefore string `json:"keyBefore"`
	KeyAfter  string `json:"keyAfter"`
	// Score is the size of the change (sum of relative changes of the
	// numeric figures, plus one per changed verdict or flag); it orders
	// changes of equal impact and picks the charted workload.
	Score   float64            `json:"score"`
	Figures []Figure           `json:"figures"`
	Base    *contract.Workload `json:"base"`
	Head    *contract.Workload `json:"head"`
}

// Figure is one compared figure that differs.
type Figure struct {
	// Key is stable for machines, e.g. "size.overload[30].rounds".
	Key string `json:"key"`
	// Label is for people, e.g. "30x overload: rounds".
	Label string `json:"label"`
	// Before / After are the raw values (number, bool or string; "never" or
	// "none" for a figure the model says does not exist), null when the
	// figure is absent on that side.
	Before any `json:"before"`
	After  any `json:"after"`
	// BeforeText / AfterText are formatted with units; "—" when absent.
	BeforeText string `json:"beforeText"`
	AfterText  string `json:"afterText"`
	// Delta is the signed difference of numeric figures, e.g. "+22 min".
	Delta string `json:"delta,omitempty"`
}

// Compare matches the workloads of base and head by id and lists the ones
// that were added, removed, or whose bill figures, verdict, live findings,
// replica bounds or metric targets changed. Timelines are ignored (they are
// pictures of the same figures), and so is float noise below a relative
// 1e-9, which re-pricing on another machine can produce.
func Compare(base, head contract.Report) Result {
	res := Result{
		SchemaVersion: SchemaVersion,
		Base:          sideOf(base),
		Head:          sideOf(head),
		Changes:       []Change{},
		Counts:        Counts{Transitions: map[string]int{}},
	}
	bs, hs := byID(base.Workloads), byID(head.Workloads)
	res.Counts.Base, res.Counts.Head = len(bs), len(hs)

	ids := make([]string, 0, len(bs)+len(hs))
	for id := range bs {
		ids = append(ids, id)
	}
	for id := range hs {
		if _, ok := bs[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)

	for _, id := range ids {
		b, h := bs[id], hs[id]
		if b != nil && h != nil && b.Verdict == contract.VerdictFail && h.Verdict != contract.VerdictFail {
			res.Counts.Fixed++
		}
		c, changed := compareOne(id, b, h)
		if !changed {
			res.Counts.Unchanged++
			continue
		}
		switch c.Status {
		case StatusAdded:
			res.Counts.Added++
		case StatusRemoved:
			res.Counts.Removed++
			if b.Verdict == contract.VerdictFail {
				res.Counts.Fixed++
			}
		default:
			res.Counts.Modified++
		}
		if c.NewFailure {
			res.Counts.NewFailures++
		}
		res.Counts.Transitions[c.Impact]++
		res.Changes = append(res.Changes, c)
	}
	res.Counts.Changed = len(res.Changes)
	slices.SortStableFunc(res.Changes, func(a, b Change) int {
		if c := cmp.Compare(slices.Index(impactOrder, a.Impact), slices.Index(impactOrder, b.Impact)); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return res
}

func sideOf(r contract.Report) Side {
	return Side{Root: r.Root, Tool: r.Tool, GeneratedAt: r.GeneratedAt, Summary: r.Summary}
}

// byID indexes workloads by id; a duplicate id keeps the first, as merge
// does, so that a malformed report still compares deterministically.
func byID(ws []contract.Workload) map[string]*contract.Workload {
	m := make(map[string]*contract.Workload, len(ws))
	for i := range ws {
		if _, dup := m[ws[i].ID]; !dup {
			m[ws[i].ID] = &ws[i]
		}
	}
	return m
}

// compareOne builds the Change of one id; changed is false when nothing
// compared differs.
func compareOne(id string, b, h *contract.Workload) (Change, bool) {
	c := Change{ID: id, Figures: []Figure{}, Base: b, Head: h}
	var bf, hf []fig
	kind := keyKindOf(b, h)
	if b != nil {
		bf = figuresOf(*b)
		c.VerdictBefore = b.Verdict
		c.KeyBefore = keyFigure(*b, kind)
	}
	if h != nil {
		hf = figuresOf(*h)
		c.VerdictAfter = h.Verdict
		c.KeyAfter = keyFigure(*h, kind)
	}
	diffs := diffFigures(bf, hf)
	switch {
	case b == nil:
		c.Status = StatusAdded
	case h == nil:
		c.Status = StatusRemoved
	case len(diffs) == 0:
		return c, false
	default:
		c.Status = StatusChanged
	}
	for _, d := range diffs {
		c.Figures = append(c.Figures, d.figure())
		c.Score += d.score()
	}
	c.NewFailure = c.VerdictAfter == contract.VerdictFail && c.VerdictBefore != contract.VerdictFail
	c.Impact = impactOf(c)
	c.Summary = strings.Join(phrases(c, diffs), "; ")
	return c, true
}

// keyKindOf is the key figure both sides of a change quote: the one that
// decides the worse side's verdict (the head's on a tie), so a new failure
// shows its failing figure before and after.
func keyKindOf(b, h *contract.Workload) string {
	switch {
	case h == nil:
		return keyKind(*b)
	case b == nil || verdictRank(h.Verdict) <= verdictRank(b.Verdict):
		return keyKind(*h)
	}
	return keyKind(*b)
}

func impactOf(c Change) string {
	switch {
	case c.NewFailure:
		return ImpactNewFailure
	case c.Status == StatusAdded:
		return ImpactAdded
	case c.Status == StatusRemoved:
		return ImpactRemoved
	}
	// A bill that can no longer be computed is a loss of information, not
	// an improvement; one that can again is a gain.
	switch {
	case c.VerdictAfter == contract.VerdictUnpriced && c.VerdictBefore != contract.VerdictUnpriced:
		return ImpactWorse
	case c.VerdictBefore == contract.VerdictUnpriced && c.VerdictAfter != contract.VerdictUnpriced && c.VerdictAfter != contract.VerdictFail:
		return ImpactBetter
	}
	rb, ra := verdictRank(c.VerdictBefore), verdictRank(c.VerdictAfter)
	switch {
	case c.VerdictBefore == contract.VerdictFail && c.VerdictAfter != contract.VerdictFail:
		return ImpactFixed
	case ra < rb:
		return ImpactWorse
	case ra > rb:
		return ImpactBetter
	case c.VerdictAfter == contract.VerdictFail:
		return ImpactFailing
	}
	return ImpactChanged
}

// verdictRank orders verdicts worst first, like the ledger (unpriced is
// handled before it is consulted).
var verdictRank = contract.VerdictRank

// sameFloat is equality up to a relative 1e-9: the simulation is
// deterministic, but a figure that went through JSON or another CPU's FMA
// can differ in the last bits, and that is not a change to report.
func sameFloat(a, b float64) bool {
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return true
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}
