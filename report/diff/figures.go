package diff

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/units"
)

// unit says how a figure is formatted and whether it has a numeric delta.
type unit int

const (
	unitCount   unit = iota // pods, rounds: whole numbers
	unitNumber              // a ratio or a mean: three significant digits
	unitSeconds             // durations
	unitPercent             // a utilization target
	unitPerPod              // a KEDA threshold, messages per pod
	unitBool                // a yes/no of the model
	unitText                // verdicts, lists
)

// fig is one comparable figure of one workload. v is float64, bool or
// string; a figure the model says does not exist (rounds that never come, a
// remedy that does not exist) is a string such as "never".
type fig struct {
	key, label string
	u          unit
	v          any
}

// figuresOf lists every compared figure of a workload in reading order.
// Timelines, scale events, overshoot and the rounds curve are left out: the
// brief's figures already say what they would, and the curve is a plot.
func figuresOf(w contract.Workload) []fig {
	fs := []fig{
		{"verdict", "verdict", unitText, w.Verdict},
		{"signal", "signal", unitText, w.Signal},
		{"bill", "bill", unitText, billKind(w)},
		{"minReplicas", "minReplicas", unitCount, float64(w.MinReplicas)},
		{"maxReplicas", "maxReplicas", unitCount, float64(w.MaxReplicas)},
		{"metrics", "metric targets", unitText, metricTargets(w.Metrics)},
		{"findings", "findings", unitText, checkIDs(w.Findings)},
	}
	if s := w.Size; s != nil {
		hottest := any("unknown")
		if s.HottestTarget != nil {
			hottest = float64(*s.HottestTarget)
		}
		fs = append(fs,
			fig{"size.growthFactor", "growth factor", unitNumber, s.GrowthFactor},
			fig{"size.deadBand", "dead band", unitBool, s.DeadBand},
			fig{"size.hottestTarget", "hottest target", unitPercent, hottest},
		)
		ol := slices.Clone(s.Overloads)
		slices.SortStableFunc(ol, func(a, b contract.SizeOverload) int { return cmpFloat(a.K, b.K) })
		for _, o := range ol {
			k := kText(o.K)
			add := func(name, label string, u unit, v any) {
				fs = append(fs, fig{"size.overload[" + num(o.K) + "]." + name, k + " overload: " + label, u, v})
			}
			add("rounds", "rounds", unitCount, intOr(o.Rounds, "never"))
			add("roundsBound", "rounds bound", unitCount, intOr(o.RoundsBound, "none"))
			add("timeToCapacitySeconds", "time to capacity", unitSeconds, intOr(o.TimeToCapacitySeconds, "never"))
			add("peakReplicas", "peak pods", unitCount, float64(o.PeakReplicas))
			add("neededReplicas", "pods needed", unitCount, float64(o.NeededReplicas))
			add("peakBacklog", "peak backlog", unitNumber, o.PeakBacklog)
			add("peakWaitSeconds", "peak wait", unitSeconds, o.PeakWaitSeconds)
			add("drainedAtSeconds", "drained at", unitSeconds, intOr(o.DrainedAtSeconds, "never"))
		}
	}
	if t := w.Time; t != nil {
		threshold := any("none")
		if t.ThresholdToRest != nil {
			threshold = *t.ThresholdToRest
		}
		fs = append(fs,
			fig{"time.standingDelaySeconds", "standing delay", unitSeconds, t.StandingDelaySeconds},
			fig{"time.requiredStandingDelaySeconds", "required standing delay", unitSeconds, t.RequiredStandingDelaySeconds},
			fig{"time.hunts", "hunts", unitBool, t.Hunts},
			fig{"time.replicasMin", "replicas min", unitCount, float64(t.ReplicasMin)},
			fig{"time.replicasMax", "replicas max", unitCount, float64(t.ReplicasMax)},
			fig{"time.replicasMean", "replicas mean", unitNumber, t.ReplicasMean},
			fig{"time.replicasP5", "replicas p5", unitNumber, t.ReplicasP5},
			fig{"time.replicasP95", "replicas p95", unitNumber, t.ReplicasP95},
			fig{"time.neededReplicas", "pods needed", unitCount, float64(t.NeededReplicas)},
			fig{"time.thresholdToRest", "remedy: threshold to rest", unitPerPod, threshold},
			fig{"time.windowToRest", "remedy: window to rest", unitSeconds, intOr(t.WindowToRest, "none")},
			fig{"time.deadTimeToRest", "remedy: dead time to rest", unitSeconds, intOr(t.DeadTimeToRest, "none")},
		)
		// Only a consumer KEDA scales to zero has the figure; the side
		// without it reads "—".
		if z := t.ScaleFromZero; z != nil {
			fs = append(fs, fig{"time.firstMessageWaitSeconds", "first message after idle", unitSeconds, z.FirstMessageWaitSeconds})
		}
	}
	return fs
}

func billKind(w contract.Workload) string {
	switch {
	case w.Size != nil:
		return "size"
	case w.Time != nil:
		return "time"
	}
	return "none"
}

// metricTargets is the metrics' targets as one comparable string, in the
// autoscaler's order (the HPA takes the largest proposal, so order does not
// matter to it, but it is stable for a given manifest).
func metricTargets(ms []contract.Metric) string {
	if len(ms) == 0 {
		return "none"
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = strings.TrimSpace(m.Name + " " + m.Target)
	}
	return strings.Join(parts, "; ")
}

// checkIDs is the sorted set of live (not ignored) finding checks: the
// messages quote figures that are compared on their own, so only which
// checks fire is a change of its own.
func checkIDs(fs []contract.Finding) string {
	var ids []string
	for _, f := range fs {
		if !f.Ignored {
			ids = append(ids, f.Check)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

func intOr(p *int, none string) any {
	if p == nil {
		return none
	}
	return float64(*p)
}

// figDiff is one figure that differs; a nil side means absent there.
type figDiff struct {
	before, after *fig
}

// diffFigures pairs figures by key (base order, then head-only keys) and
// keeps those that differ.
func diffFigures(base, head []fig) []figDiff {
	hi := make(map[string]int, len(head))
	for i, f := range head {
		hi[f.key] = i
	}
	seen := make(map[string]bool, len(base))
	var out []figDiff
	for i := range base {
		b := &base[i]
		seen[b.key] = true
		var h *fig
		if j, ok := hi[b.key]; ok {
			h = &head[j]
		}
		if h == nil || !sameValue(b.v, h.v) {
			out = append(out, figDiff{b, h})
		}
	}
	for j := range head {
		if !seen[head[j].key] {
			out = append(out, figDiff{nil, &head[j]})
		}
	}
	return out
}

func sameValue(a, b any) bool {
	fa, aok := a.(float64)
	fb, bok := b.(float64)
	if aok && bok {
		return sameFloat(fa, fb)
	}
	return a == b
}

func (d figDiff) either() *fig {
	if d.after != nil {
		return d.after
	}
	return d.before
}

func (d figDiff) figure() Figure {
	f := d.either()
	out := Figure{Key: f.key, Label: f.label, BeforeText: "—", AfterText: "—"}
	if d.before != nil {
		out.Before, out.BeforeText = d.before.v, format(d.before.u, d.before.v)
	}
	if d.after != nil {
		out.After, out.AfterText = d.after.v, format(d.after.u, d.after.v)
	}
	if a, b, ok := d.numbers(); ok {
		out.Delta = signed(f.u, b-a)
	}
	return out
}

// numbers returns both sides when both are numeric.
func (d figDiff) numbers() (before, after float64, ok bool) {
	if d.before == nil || d.after == nil {
		return 0, 0, false
	}
	a, aok := d.before.v.(float64)
	b, bok := d.after.v.(float64)
	return a, b, aok && bok
}

// score is the relative size of the change: |Δ|/max(|a|,|b|) for numbers
// (so a doubling weighs the same for pods and seconds), 1 for anything else.
func (d figDiff) score() float64 {
	if a, b, ok := d.numbers(); ok {
		m := math.Max(math.Abs(a), math.Abs(b))
		if m == 0 {
			return 0
		}
		return math.Abs(b-a) / m
	}
	return 1
}

// Key figure kinds: which figure of a bill decides its verdict.
const (
	keyRounds   = "rounds"   // rounds to capacity (a passing Size bill)
	keyDeadBand = "deadBand" // never scales on saturation
	keyCapped   = "capped"   // the peak falls short of the pods needed
	keyNever    = "never"    // capacity never meets the overload
	keyLatency  = "latency"  // the figure held against the latency target
	keyBand     = "band"     // the Time bill's replica band (hunts or rests)
)

// keyKind is the figure that decides a workload's verdict, worst cause
// first: the ledger quotes it so that a failing row shows why it fails (a
// peak of 50 pods for 100 needed), not a figure that did not move.
func keyKind(w contract.Workload) string {
	switch {
	case w.Size != nil && w.Size.DeadBand:
		return keyDeadBand
	case w.Size != nil && cappedOverload(w.Size) != nil:
		return keyCapped
	case w.Size != nil && neverOverload(w.Size) != nil:
		return keyNever
	case w.Latency != nil && !w.Latency.Met:
		return keyLatency
	case w.Time != nil:
		return keyBand
	}
	return keyRounds
}

// keyFigure is the figure of kind the ledger quotes for a workload's bill;
// a kind the workload has no figure for falls back to its own kind, so the
// two sides of a change can be read in the same terms where they exist.
func keyFigure(w contract.Workload, kind string) string {
	if w.Size == nil && w.Time == nil {
		return "unpriced"
	}
	switch kind {
	case keyDeadBand:
		if w.Size != nil {
			if w.Size.DeadBand {
				return "dead band: never scales at growth factor " + num(w.Size.GrowthFactor)
			}
			return "scales at growth factor " + num(w.Size.GrowthFactor)
		}
	case keyCapped:
		if o := largestOverload(w.Size); o != nil {
			if c := cappedOverload(w.Size); c != nil {
				o = c
			}
			return fmt.Sprintf("peak %d pods vs %d needed at %s", o.PeakReplicas, o.NeededReplicas, kText(o.K))
		}
	case keyNever:
		if o := largestOverload(w.Size); o != nil {
			if n := neverOverload(w.Size); n != nil {
				o = n
			}
			return "capacity " + units.SecondsOr(o.TimeToCapacitySeconds, "never") + " at " + kText(o.K)
		}
	case keyLatency:
		if l := w.Latency; l != nil {
			return fmt.Sprintf("%s: %s vs %s target", l.Basis, seconds(l.ExpectedSeconds), seconds(l.TargetSeconds))
		}
	case keyBand:
		if w.Time != nil {
			return fmt.Sprintf("%s %d..%d pods", huntsWord(w.Time.Hunts), w.Time.ReplicasMin, w.Time.ReplicasMax)
		}
	case keyRounds:
		if o := largestOverload(w.Size); o != nil {
			if o.Rounds == nil {
				return "never reaches capacity at " + kText(o.K)
			}
			return units.Count(*o.Rounds, "round", "rounds") + " at " + kText(o.K)
		}
		if w.Size != nil {
			return "no overload priced"
		}
	}
	return keyFigure(w, keyKind(w))
}

// cappedOverload is the largest design overload whose peak falls short of
// the pods it needs (maxReplicas reached, or a partition cap).
func cappedOverload(s *contract.SizeBill) *contract.SizeOverload {
	var best *contract.SizeOverload
	for i, o := range s.Overloads {
		if o.PeakReplicas < o.NeededReplicas && (best == nil || o.K > best.K) {
			best = &s.Overloads[i]
		}
	}
	return best
}

// neverOverload is the largest design overload capacity never meets.
func neverOverload(s *contract.SizeBill) *contract.SizeOverload {
	var best *contract.SizeOverload
	for i, o := range s.Overloads {
		if o.TimeToCapacitySeconds == nil && (best == nil || o.K > best.K) {
			best = &s.Overloads[i]
		}
	}
	return best
}

func huntsWord(h bool) string {
	if h {
		return "hunts"
	}
	return "rests"
}

func largestOverload(s *contract.SizeBill) *contract.SizeOverload {
	var best *contract.SizeOverload
	for i := range s.Overloads {
		if best == nil || s.Overloads[i].K > best.K {
			best = &s.Overloads[i]
		}
	}
	return best
}

func overloadAt(s *contract.SizeBill, k float64) *contract.SizeOverload {
	if s == nil {
		return nil
	}
	for i := range s.Overloads {
		if s.Overloads[i].K == k {
			return &s.Overloads[i]
		}
	}
	return nil
}

// phrases says the change in words, most telling first: the verdict, the
// bill's key figures, then the settings that moved them.
func phrases(c Change, diffs []figDiff) []string {
	var out []string
	switch c.Status {
	case StatusAdded:
		return []string{"new autoscaler: " + c.KeyAfter + ", verdict " + c.VerdictAfter}
	case StatusRemoved:
		return []string{"removed (was " + c.VerdictBefore + ": " + c.KeyBefore + ")"}
	}
	changed := map[string]figDiff{}
	for _, d := range diffs {
		changed[d.either().key] = d
	}
	if _, ok := changed["verdict"]; ok {
		out = append(out, "verdict "+c.VerdictBefore+" → "+c.VerdictAfter)
	}
	if d, ok := changed["bill"]; ok {
		out = append(out, "bill "+text(d.before)+" → "+text(d.after))
	}
	b, h := c.Base, c.Head
	if b.Size != nil && h.Size != nil {
		out = append(out, sizePhrases(b.Size, h.Size, changed)...)
	}
	if b.Time != nil && h.Time != nil {
		out = append(out, timePhrases(b.Time, h.Time, changed)...)
	}
	if _, ok := changed["metrics"]; ok {
		out = append(out, "target "+metricTargets(b.Metrics)+" → "+metricTargets(h.Metrics))
	}
	_, minOK := changed["minReplicas"]
	_, maxOK := changed["maxReplicas"]
	if minOK || maxOK {
		out = append(out, fmt.Sprintf("replicas %d..%d → %d..%d", b.MinReplicas, b.MaxReplicas, h.MinReplicas, h.MaxReplicas))
	}
	if _, ok := changed["findings"]; ok {
		out = append(out, findingsPhrase(b.Findings, h.Findings))
	}
	if len(out) == 0 {
		// Only secondary figures moved (a bound, a remedy): say how many.
		out = append(out, fmt.Sprintf("%d %s changed", len(diffs), plural(len(diffs), "figure", "figures")))
	}
	return out
}

// sizePhrases quotes the largest design overload that changed, the way a
// reviewer reads a Size bill: rounds, then the time it costs.
func sizePhrases(b, h *contract.SizeBill, changed map[string]figDiff) []string {
	var out []string
	if d, ok := changed["size.deadBand"]; ok {
		if d.after != nil && d.after.v == true {
			out = append(out, "now in the dead band: never scales on saturation")
		} else {
			out = append(out, "out of the dead band")
		}
	}
	var ks []float64
	for _, o := range h.Overloads {
		if overloadAt(b, o.K) != nil {
			ks = append(ks, o.K)
		}
	}
	slices.Sort(ks)
	for i := len(ks) - 1; i >= 0; i-- {
		k := ks[i]
		prefix := "size.overload[" + num(k) + "]."
		bo, ho := overloadAt(b, k), overloadAt(h, k)
		var parts []string
		if _, ok := changed[prefix+"rounds"]; ok {
			parts = append(parts, roundsText(bo.Rounds)+" → "+roundsText(ho.Rounds)+" rounds")
		}
		if _, ok := changed[prefix+"timeToCapacitySeconds"]; ok {
			switch {
			case bo.TimeToCapacitySeconds != nil && ho.TimeToCapacitySeconds != nil:
				parts = append(parts, signed(unitSeconds, float64(*ho.TimeToCapacitySeconds-*bo.TimeToCapacitySeconds))+" to capacity")
			case ho.TimeToCapacitySeconds == nil:
				parts = append(parts, "never reaches capacity")
			default:
				parts = append(parts, "now reaches capacity in "+seconds(float64(*ho.TimeToCapacitySeconds)))
			}
		}
		if _, ok := changed[prefix+"peakWaitSeconds"]; ok {
			parts = append(parts, "peak wait "+seconds(bo.PeakWaitSeconds)+" → "+seconds(ho.PeakWaitSeconds))
		}
		if _, ok := changed[prefix+"peakReplicas"]; ok && len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("peak pods %d → %d", bo.PeakReplicas, ho.PeakReplicas))
		}
		if len(parts) > 0 {
			// One overload is enough for the words; the details list all.
			out = append(out, kText(k)+" overload: "+strings.Join(parts, ", "))
			break
		}
	}
	if d, ok := changed["size.hottestTarget"]; ok {
		out = append(out, "hottest target "+text(d.before)+" → "+text(d.after))
	}
	return out
}

func timePhrases(b, h *contract.TimeBill, changed map[string]figDiff) []string {
	var out []string
	band := fmt.Sprintf("%d..%d → %d..%d pods", b.ReplicasMin, b.ReplicasMax, h.ReplicasMin, h.ReplicasMax)
	_, minOK := changed["time.replicasMin"]
	_, maxOK := changed["time.replicasMax"]
	switch {
	case b.Hunts != h.Hunts:
		out = append(out, "now "+huntsWord(h.Hunts)+": "+band)
	case minOK || maxOK:
		out = append(out, "still "+huntsWord(h.Hunts)+": "+band)
	}
	_, sd := changed["time.standingDelaySeconds"]
	_, rq := changed["time.requiredStandingDelaySeconds"]
	switch {
	case sd && rq:
		out = append(out, "standing delay "+seconds(b.StandingDelaySeconds)+" → "+seconds(h.StandingDelaySeconds)+
			", required "+seconds(b.RequiredStandingDelaySeconds)+" → "+seconds(h.RequiredStandingDelaySeconds))
	case sd:
		out = append(out, "standing delay "+seconds(b.StandingDelaySeconds)+" → "+seconds(h.StandingDelaySeconds)+
			" (needs "+seconds(h.RequiredStandingDelaySeconds)+")")
	case rq:
		out = append(out, "required standing delay "+seconds(b.RequiredStandingDelaySeconds)+" → "+
			seconds(h.RequiredStandingDelaySeconds)+" (carries "+seconds(h.StandingDelaySeconds)+")")
	}
	if d, ok := changed["time.firstMessageWaitSeconds"]; ok {
		switch {
		case d.before == nil:
			out = append(out, "now scales to zero: the first message after idle waits "+text(d.after))
		case d.after == nil:
			out = append(out, "no longer scales to zero (was a first-message wait of "+text(d.before)+")")
		default:
			out = append(out, "first message after idle waits "+text(d.before)+" → "+text(d.after))
		}
	}
	return out
}

// findingsPhrase names the checks that started and stopped firing.
func findingsPhrase(b, h []contract.Finding) string {
	bs, hs := liveSet(b), liveSet(h)
	var parts []string
	for _, id := range sortedKeys(hs) {
		if !bs[id] {
			parts = append(parts, "+"+id)
		}
	}
	for _, id := range sortedKeys(bs) {
		if !hs[id] {
			parts = append(parts, "−"+id)
		}
	}
	return "findings " + strings.Join(parts, ", ")
}

func liveSet(fs []contract.Finding) map[string]bool {
	m := map[string]bool{}
	for _, f := range fs {
		if !f.Ignored {
			m[f.Check] = true
		}
	}
	return m
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func roundsText(p *int) string {
	if p == nil {
		return "never"
	}
	return strconv.Itoa(*p)
}

func text(f *fig) string {
	if f == nil {
		return "—"
	}
	return format(f.u, f.v)
}

// format renders a figure's value with its unit.
func format(u unit, v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case string:
		return x
	case float64:
		switch u {
		case unitCount:
			return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
		case unitSeconds:
			return seconds(x)
		case unitPercent:
			return num(x) + " %"
		case unitPerPod:
			return num(x) + " per pod"
		}
		return num(x)
	}
	return fmt.Sprint(v)
}

// signed formats a delta with its sign and unit.
func signed(u unit, d float64) string {
	sign := "+"
	if d < 0 {
		sign = "−"
		d = -d
	}
	switch u {
	case unitSeconds:
		return sign + seconds(d)
	case unitPercent:
		return sign + num(d) + " pt"
	case unitCount:
		return sign + strconv.FormatFloat(math.Round(d), 'f', 0, 64)
	}
	return sign + num(d)
}

// seconds formats a duration the way every format does.
var seconds = units.Duration

// num formats figures the same way the report does.
var num = units.Number

// kText formats a design overload or a step, as the report does.
var kText = units.Multiple

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// plural picks the word for n, as the report does.
var plural = units.Plural
