package diff

import (
	"math"

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
