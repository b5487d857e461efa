// Package diff compares two capreport reports (the base and the head of a
// pull request) and renders what changed: the pull-request comment, JSON and
// text. It is pure: reports in, values and bytes out; it never prices
// anything, it only compares what rules already put in the reports.
package diff

import (
	"cmp"
	"slices"
	"strings"

	"github.com/capreport/capreport/contract"
)

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
	c.Figures = make([]Figure, 0, len(diffs))
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
