package diff

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
)

// compareCase is one Compare scenario: two reports in, the listed ids, the
// counts and what the change must say.
type compareCase struct {
	name       string
	base, head contract.Report
	wantIDs    []string // listed, in order
	want       Counts
	// figures maps an id to keys that must be among its changed figures,
	// each with its before and after text.
	figures map[string]map[string][2]string
	// noFigures maps an id to keys that must not be listed.
	noFigures map[string][]string
	// words maps an id to substrings of its Summary.
	words map[string][]string
}

func (c compareCase) run(t *testing.T) {
	t.Helper()
	got := Compare(c.base, c.head)
	if got.SchemaVersion != SchemaVersion {
		t.Errorf("schemaVersion %q", got.SchemaVersion)
	}
	var ids []string
	for _, ch := range got.Changes {
		ids = append(ids, ch.ID)
	}
	if !slices.Equal(ids, c.wantIDs) {
		t.Errorf("listed %q, want %q", ids, c.wantIDs)
	}
	counts, sum := got.Counts, 0
	for _, n := range counts.Transitions {
		sum += n
	}
	if sum != counts.Changed {
		t.Errorf("transitions %v count %d autoscalers, %d changed", counts.Transitions, sum, counts.Changed)
	}
	counts.Transitions = nil
	if !reflect.DeepEqual(counts, c.want) {
		t.Errorf("counts %+v, want %+v", counts, c.want)
	}
	byID := map[string]Change{}
	for _, ch := range got.Changes {
		byID[ch.ID] = ch
	}
	for id, figs := range c.figures {
		have := map[string]Figure{}
		for _, f := range byID[id].Figures {
			have[f.Key] = f
		}
		for key, ba := range figs {
			f, ok := have[key]
			if !ok {
				t.Errorf("%s: figure %s not listed; have %v", id, key, keys(have))
				continue
			}
			if f.BeforeText != ba[0] || f.AfterText != ba[1] {
				t.Errorf("%s: %s is %q → %q, want %q → %q", id, key, f.BeforeText, f.AfterText, ba[0], ba[1])
			}
		}
	}
	for id, ks := range c.noFigures {
		for _, f := range byID[id].Figures {
			if slices.Contains(ks, f.Key) {
				t.Errorf("%s: figure %s listed (%s → %s), want it unchanged", id, f.Key, f.BeforeText, f.AfterText)
			}
		}
	}
	for id, ws := range c.words {
		for _, w := range ws {
			if !strings.Contains(byID[id].Summary, w) {
				t.Errorf("%s: summary %q lacks %q", id, byID[id].Summary, w)
			}
		}
	}
}

func keys(m map[string]Figure) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

const (
	webID    = "shop/HorizontalPodAutoscaler/web"
	ordersID = "shop/ScaledObject/orders"
	staticID = "shop/HorizontalPodAutoscaler/static"
)

func TestCompare(t *testing.T) {
	noisy := sizeWorkload()
	noisy.Size = cloneSize(noisy.Size)
	noisy.Size.GrowthFactor *= 1 + 1e-12
	noisy.Size.Overloads[1].PeakWaitSeconds *= 1 - 3e-10
	noisy.Size.Overloads[1].PeakBacklog *= 1 + 5e-10

	moved := sizeWorkload()
	moved.Size = cloneSize(moved.Size)
	moved.Size.Overloads[1].PeakWaitSeconds *= 1 + 1e-6 // a real, if small, change

	retimed := sizeWorkload()
	retimed.Size = cloneSize(retimed.Size)
	retimed.Size.Overloads[1].Timeline = ramp(0, 15, 10, 320, 30)

	ignored := sizeWorkload()
	ignored.Findings = []contract.Finding{{Check: "assumption-default", Severity: check.SeverityWarning, Ignored: true, IgnoreReason: "agreed"}}
	live := sizeWorkload()
	live.Findings = []contract.Finding{{Check: "assumption-default", Severity: check.SeverityWarning}}

	stillFailing := sizeAt80()
	stillFailing.MaxReplicas = 2000

	wider := timeWorkload()
	wider.MaxReplicas = 200

	for _, c := range []compareCase{
		{
			name: "target 50 → 80 raises rounds and newly fails",
			base: reportOf(sizeWorkload(), steadyWorkload()),
			head: reportOf(sizeAt80(), steadyWorkload()),
			want: Counts{Base: 2, Head: 2, Changed: 1, Modified: 1, Unchanged: 1, NewFailures: 1},
			// The unchanged HPA is counted, not listed.
			wantIDs: []string{webID},
			figures: map[string]map[string][2]string{webID: {
				"metrics":                  {"cpu 50%", "cpu 80%"},
				"verdict":                  {"pass", "fail"},
				"size.growthFactor":        {"2", "1.25"},
				"size.overload[30].rounds": {"4", "15"},
				"size.overload[30].timeToCapacitySeconds": {"7 min 30 s", "29 min 30 s"},
				"size.overload[10].rounds":                {"4", "11"},
				"findings":                                {"none", "size-latency-target"},
			}},
			noFigures: map[string][]string{webID: {"size.hottestTarget", "minReplicas", "maxReplicas", "size.overload[30].neededReplicas"}},
			words: map[string][]string{webID: {
				"verdict pass → fail", "30x overload: 4 → 15 rounds, +22 min to capacity", "target cpu 50% → cpu 80%", "findings +size-latency-target",
			}},
		},
		{
			name:    "window 300 → 60 s makes the consumer hunt",
			base:    reportOf(timeWorkload()),
			head:    reportOf(timeShortWindow()),
			want:    Counts{Base: 1, Head: 1, Changed: 1, Modified: 1},
			wantIDs: []string{ordersID},
			figures: map[string]map[string][2]string{ordersID: {
				"time.hunts":                        {"no", "yes"},
				"time.replicasMin":                  {"19", "6"},
				"time.replicasMax":                  {"21", "35"},
				"time.requiredStandingDelaySeconds": {"89.6 s", "2 min 40 s"},
				"verdict":                           {"pass", "warn"},
			}},
			noFigures: map[string][]string{ordersID: {"time.standingDelaySeconds", "time.neededReplicas", "metrics"}},
			words: map[string][]string{ordersID: {
				"now hunts: 19..21 → 6..35 pods", "verdict pass → warn", "required standing delay 89.6 s → 2 min 40 s (carries 2 min 30 s)",
			}},
		},
		{
			name:    "minReplicaCount removed: the consumer scales to zero",
			base:    reportOf(timeWorkload()),
			head:    reportOf(timeToZero()),
			want:    Counts{Base: 1, Head: 1, Changed: 1, Modified: 1},
			wantIDs: []string{ordersID},
			figures: map[string]map[string][2]string{ordersID: {
				"minReplicas":                  {"1", "0"},
				"time.firstMessageWaitSeconds": {"—", "2 min"},
			}},
			words: map[string][]string{ordersID: {"now scales to zero: the first message after idle waits 2 min"}},
		},
		{
			name:    "minReplicaCount restored: no wait from zero",
			base:    reportOf(timeToZero()),
			head:    reportOf(timeWorkload()),
			want:    Counts{Base: 1, Head: 1, Changed: 1, Modified: 1},
			wantIDs: []string{ordersID},
			figures: map[string]map[string][2]string{ordersID: {"time.firstMessageWaitSeconds": {"2 min", "—"}}},
			words:   map[string][]string{ordersID: {"no longer scales to zero (was a first-message wait of 2 min)"}},
		},
		{
			name:    "added and removed",
			base:    reportOf(sizeWorkload(), steadyWorkload()),
			head:    reportOf(timeWorkload(), steadyWorkload()),
			want:    Counts{Base: 2, Head: 2, Changed: 2, Added: 1, Removed: 1, Unchanged: 1},
			wantIDs: []string{ordersID, webID}, // added ranks before removed
			figures: map[string]map[string][2]string{
				ordersID: {"time.hunts": {"—", "no"}, "verdict": {"—", "pass"}},
				webID:    {"size.overload[30].rounds": {"4", "—"}},
			},
			words: map[string][]string{
				ordersID: {"new autoscaler: rests 19..21 pods, verdict pass"},
				webID:    {"removed (was pass: 4 rounds at 30x)"},
			},
		},
		{
			name:    "an added autoscaler that fails is a new failure",
			base:    reportOf(steadyWorkload()),
			head:    reportOf(steadyWorkload(), sizeAt80()),
			want:    Counts{Base: 1, Head: 2, Changed: 1, Added: 1, Unchanged: 1, NewFailures: 1},
			wantIDs: []string{webID},
		},
		{
			name: "fixed: fail → pass is listed right after new failures and counted",
			base: reportOf(sizeAt80(), timeWorkload()), head: reportOf(sizeWorkload(), timeShortWindow()),
			want:    Counts{Base: 2, Head: 2, Changed: 2, Modified: 2, Fixed: 1},
			wantIDs: []string{webID, ordersID}, // fail → pass (fixed) before pass → warn (worse)
			words:   map[string][]string{webID: {"verdict fail → pass", "30x overload: 15 → 4 rounds, −22 min to capacity"}},
		},
		{
			name:    "still failing with moved figures is listed, not a new failure",
			base:    reportOf(sizeAt80()),
			head:    reportOf(stillFailing),
			want:    Counts{Base: 1, Head: 1, Changed: 1, Modified: 1},
			wantIDs: []string{webID},
			words:   map[string][]string{webID: {"replicas 10..1000 → 10..2000"}},
		},
		{
			name:    "float noise below 1e-9 relative is not a change",
			base:    reportOf(sizeWorkload()),
			head:    reportOf(noisy),
			want:    Counts{Base: 1, Head: 1, Unchanged: 1},
			wantIDs: nil,
		},
		{
			name:    "a change above the noise is listed",
			base:    reportOf(sizeWorkload()),
			head:    reportOf(moved),
			want:    Counts{Base: 1, Head: 1, Changed: 1, Modified: 1},
			wantIDs: []string{webID},
			words:   map[string][]string{webID: {"30x overload: peak wait 50 s → 50 s"}},
		},
		{
			name:    "timelines are pictures, not figures",
			base:    reportOf(sizeWorkload()),
			head:    reportOf(retimed),
			want:    Counts{Base: 1, Head: 1, Unchanged: 1},
			wantIDs: nil,
		},
		{
			name:    "an ignored finding is not a change, a live one is",
			base:    reportOf(sizeWorkload(), timeWorkload()),
			head:    reportOf(ignored, timeWorkload()),
			want:    Counts{Base: 2, Head: 2, Unchanged: 2},
			wantIDs: nil,
		},
		{
			name:    "a live finding is a change",
			base:    reportOf(ignored),
			head:    reportOf(live),
			want:    Counts{Base: 1, Head: 1, Changed: 1, Modified: 1},
			wantIDs: []string{webID},
			figures: map[string]map[string][2]string{webID: {"findings": {"none", "assumption-default"}}},
		},
		{
			name:    "maxReplicas",
			base:    reportOf(timeWorkload()),
			head:    reportOf(wider),
			want:    Counts{Base: 1, Head: 1, Changed: 1, Modified: 1},
			wantIDs: []string{ordersID},
			figures: map[string]map[string][2]string{ordersID: {"maxReplicas": {"100", "200"}}},
			words:   map[string][]string{ordersID: {"replicas 1..100 → 1..200"}},
		},
	} {
		t.Run(c.name, c.run)
	}
}

func cloneSize(s *contract.SizeBill) *contract.SizeBill {
	c := *s
	c.Overloads = slices.Clone(s.Overloads)
	return &c
}

// TestCompareOrder: new failures first whatever their id, then by
// transition (fixed, worse, …, figures only), then the larger change, then
// id.
func TestCompareOrder(t *testing.T) {
	mk := func(id string, w contract.Workload) contract.Workload { w.ID = id; return w }
	base := reportOf(
		mk("a/HorizontalPodAutoscaler/better", sizeAt80()),
		mk("b/ScaledObject/worse", timeWorkload()),
		mk("c/HorizontalPodAutoscaler/small", sizeWorkload()),
		mk("d/HorizontalPodAutoscaler/big", sizeWorkload()),
		mk("z/HorizontalPodAutoscaler/fails", sizeWorkload()),
	)
	small := mk("c/HorizontalPodAutoscaler/small", sizeWorkload())
	small.MaxReplicas++
	big := mk("d/HorizontalPodAutoscaler/big", sizeWorkload())
	big.MaxReplicas *= 10
	head := reportOf(
		mk("a/HorizontalPodAutoscaler/better", sizeWorkload()),
		mk("b/ScaledObject/worse", timeShortWindow()),
		small, big,
		mk("z/HorizontalPodAutoscaler/fails", sizeAt80()),
	)
	var got []string
	for _, c := range Compare(base, head).Changes {
		got = append(got, c.ID+" "+c.Impact)
	}
	want := []string{
		"z/HorizontalPodAutoscaler/fails new-failure",
		"a/HorizontalPodAutoscaler/better fixed",
		"b/ScaledObject/worse worse",
		"d/HorizontalPodAutoscaler/big changed",
		"c/HorizontalPodAutoscaler/small changed",
	}
	if !slices.Equal(got, want) {
		t.Errorf("order\n got %q\nwant %q", got, want)
	}
}

// TestJSONShape: the versioned shape carries both sides of a change, and a
// diff with nothing changed still has a list, not null.
func TestJSONShape(t *testing.T) {
	out, err := JSON(Compare(reportOf(sizeWorkload()), reportOf(sizeAt80())))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion string `json:"schemaVersion"`
		Changes       []struct {
			ID      string             `json:"id"`
			Base    *contract.Workload `json:"base"`
			Head    *contract.Workload `json:"head"`
			Figures []struct {
				Key    string `json:"key"`
				Before any    `json:"before"`
				After  any    `json:"after"`
			} `json:"figures"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != "capreport.io/diff/v1" || len(doc.Changes) != 1 {
		t.Fatalf("shape: %s", out)
	}
	ch := doc.Changes[0]
	if ch.Base == nil || ch.Head == nil || ch.Base.Verdict != "pass" || ch.Head.Verdict != "fail" {
		t.Errorf("both sides not carried: %+v", ch)
	}
	found := false
	for _, f := range ch.Figures {
		if f.Key == "size.overload[30].rounds" {
			found = f.Before == 4.0 && f.After == 15.0
		}
	}
	if !found {
		t.Errorf("raw rounds 4 → 15 missing from %s", out)
	}
	empty, err := JSON(Result{SchemaVersion: SchemaVersion})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(empty), `"changes": []`) {
		t.Errorf("empty diff: %s", empty)
	}
}

// A workload that stops being priced has lost its bill: worse, not better.
func TestImpactOfPricing(t *testing.T) {
	for _, c := range []struct{ before, after, want string }{
		{contract.VerdictPass, contract.VerdictUnpriced, ImpactWorse},
		{contract.VerdictUnpriced, contract.VerdictPass, ImpactBetter},
		{contract.VerdictWarn, contract.VerdictPass, ImpactBetter},
		{contract.VerdictPass, contract.VerdictWarn, ImpactWorse},
	} {
		got := impactOf(Change{Status: StatusChanged, VerdictBefore: c.before, VerdictAfter: c.after})
		if got != c.want {
			t.Errorf("%s → %s: %s, want %s", c.before, c.after, got, c.want)
		}
	}
}
