package contract

import (
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/units"
)

// SchemaVersion is the version of the JSON report contract. Bump it on any
// change that is not purely additive; report/schema/report.v1.json documents it.
const SchemaVersion = "capreport.io/report/v1"

// Verdicts of one workload.
const (
	VerdictPass     = "pass"
	VerdictWarn     = "warn"
	VerdictFail     = "fail"
	VerdictUnpriced = "unpriced"
)

// Report is the JSON contract: every output format is rendered from it,
// `capreport diff` compares two of them, `capreport merge` joins several.
type Report struct {
	SchemaVersion string `json:"schemaVersion"`
	Tool          Tool   `json:"tool"`
	// GeneratedAt is RFC 3339, from an injected clock; empty in golden tests.
	GeneratedAt string `json:"generatedAt,omitempty"`
	// Root is the scanned path as the user gave it.
	Root string `json:"root"`
	// RepoRoot is the repository root every path in the report is relative
	// to, as capreport found it (--root, else the top of the git work tree
	// holding Root, else Root); empty when it is Root.
	RepoRoot  string     `json:"repoRoot,omitempty"`
	Summary   Summary    `json:"summary"`
	Workloads []Workload `json:"workloads"`
	Sources   []Source   `json:"sources"`
	// Findings that belong to no workload (render failures, config errors).
	Findings []Finding `json:"findings"`
}

// Tool names the producer.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Summary counts workloads by verdict and findings by severity.
type Summary struct {
	Autoscalers int `json:"autoscalers"`
	Pass        int `json:"pass"`
	Warn        int `json:"warn"`
	Fail        int `json:"fail"`
	Unpriced    int `json:"unpriced"`
	Errors      int `json:"errors"`
	Warnings    int `json:"warnings"`
	// NotFollowed counts the Flux and Argo CD objects capreport could not
	// follow offline (each is a gitops-not-followed finding).
	NotFollowed int `json:"notFollowed,omitempty"`
}

// Source is one rendered source (chart value set, overlay or file).
type Source struct {
	Path     string `json:"path"`
	Type     string `json:"type"`
	ValueSet string `json:"valueSet,omitempty"`
	Status   string `json:"status"` // rendered | skipped | failed | delivered | withheld
	Reason   string `json:"reason,omitempty"`
	Objects  int    `json:"objects"`
	// Partial: the source rendered without something it refers to.
	Partial bool `json:"partial,omitempty"`
	// Chain is the delivery of a source a GitOps object rendered.
	Chain []Link `json:"chain,omitempty"`
	// Repository says which repository a delivered source was read from,
	// and why (this one, by which URL, or a --source mapping).
	Repository string `json:"repository,omitempty"`
}

// Link, Location, Finding and Basis are check's: the report's findings are
// the very values render, analyze and the ledger raise.
type (
	Link     = check.Link
	Location = check.Location
	Finding  = check.Finding
	Basis    = check.Basis
)

// Ref names a Kubernetes object.
type Ref struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"`
}

// Assumption is one input of the model with where it came from.
type Assumption struct {
	Value string `json:"value"`
	// From is "annotation", "config", "measured" (written by calibrate),
	// "cluster", "manifest", "inferred" (read off the manifests, like the
	// signal) or "default".
	From string `json:"from"`
	// Where points at the annotation or config entry, when known.
	Where *Location `json:"where,omitempty"`
	// Measured says how `capreport calibrate` measured the value (From
	// "measured").
	Measured *Measured `json:"measured,omitempty"`
}

// Measured is how calibrate measured a value from the cluster's history.
type Measured struct {
	Query    string  `json:"query"`              // the PromQL query
	Window   string  `json:"window"`             // how far back it looked, e.g. "7d"
	Quantile float64 `json:"quantile,omitempty"` // the quantile taken (1: the peak); absent when none
	Samples  int     `json:"samples"`            // pods (dead time) or samples (rates) measured
	At       string  `json:"at"`                 // when, RFC 3339
}

// Metric summarizes one metric of the (effective) HPA.
type Metric struct {
	Type   string `json:"type"`   // Resource, ContainerResource, Pods, Object, External
	Name   string `json:"name"`   // cpu, memory, or the metric name
	Target string `json:"target"` // e.g. "50%", "AverageValue 10"
	Signal string `json:"signal"`
	// Trigger is the KEDA trigger type that produced the metric, if any.
	Trigger string `json:"trigger,omitempty"`
}

// Workload is one autoscaler with its target and its bill.
type Workload struct {
	// ID is stable across base and head: namespace/Kind/name of the autoscaler.
	ID string `json:"id"`
	// Root is set by `capreport merge`: the root (scanned path) of the
	// report the workload came from. An id is unique within one root only;
	// when two roots hold one id, merge keeps both, the id qualified as
	// "root:namespace/Kind/name".
	Root        string   `json:"root,omitempty"`
	Autoscaler  Ref      `json:"autoscaler"`
	Target      Ref      `json:"target"`
	TargetFound bool     `json:"targetFound"`
	Source      Location `json:"source"`
	Signal      string   `json:"signal"` // saturating | backlog | rate | unknown
	// MinReplicas is the fewest replicas the autoscaler keeps: an HPA's
	// minReplicas; for a ScaledObject the count KEDA scales to when idle
	// (idleReplicaCount when set, else minReplicaCount, 0 when unset),
	// which may be below the generated HPA's own floor (KEDA.HPAMinReplicas).
	MinReplicas int32    `json:"minReplicas"`
	MaxReplicas int32    `json:"maxReplicas"`
	Metrics     []Metric `json:"metrics"`
	// KEDA is what a ScaledObject sets beyond its HPA; absent for an HPA.
	KEDA        *KEDA                 `json:"keda,omitempty"`
	Assumptions map[string]Assumption `json:"assumptions"`
	Size        *SizeBill             `json:"size,omitempty"`
	Time        *TimeBill             `json:"time,omitempty"`
	Verdict     string                `json:"verdict"`
	// VerdictReason qualifies the verdict: "rests on defaults" for a warn
	// whose failing findings rest on built-in defaults.
	VerdictReason string `json:"verdictReason,omitempty"`
	// UnpricedReason says why a workload has no bill.
	UnpricedReason string    `json:"unpricedReason,omitempty"`
	Findings       []Finding `json:"findings"`
	// Latency is the pass/fail against the workload's latency target, set
	// by rules when a target is known; renderers show it and never compare.
	Latency *LatencyCheck `json:"latency,omitempty"`
}

// LatencyCheck holds the figure rules compared with the latency target, so
// that every format shows the same pass/fail without recomputing it.
type LatencyCheck struct {
	// TargetSeconds is the latency target (capreport.io/latency-target).
	TargetSeconds float64 `json:"targetSeconds"`
	// ExpectedSeconds is the figure held against it: the peak wait at the
	// largest design overload (Size); for a Time bill the largest of the
	// standing delay, the latency floor at rest and, for a ScaledObject
	// that scales to zero, the first message's wait after an idle period.
	ExpectedSeconds float64 `json:"expectedSeconds"`
	// Basis names that figure, e.g. "peak wait at 10x", "latency floor"
	// or "first message after idle".
	Basis string `json:"basis"`
	Met   bool   `json:"met"`
}

// SizeBill prices a saturating metric: CPU, as a utilization or an average
// value (memory does not drive a service's rate and is not priced).
type SizeBill struct {
	GrowthFactor float64 `json:"growthFactor"`
	DeadBand     bool    `json:"deadBand"`
	// HottestTarget is the hottest whole-percent utilization target that
	// meets the largest design overload within the recovery target's rounds
	// (Cor. 2), below the dead band; nil when no recovery target is known or
	// the HPA targets an average value.
	HottestTarget *int           `json:"hottestTarget"`
	RoundSeconds  int            `json:"roundSeconds"`
	Overloads     []SizeOverload `json:"overloads"`
	// RoundsCurve is rounds against overload k (simulated and Prop. 2's
	// bound) over a sweep of k, for the rounds plot.
	RoundsCurve []RoundsPoint `json:"roundsCurve,omitempty"`
}

// RoundsPoint is one overload of the rounds sweep.
type RoundsPoint struct {
	K      float64 `json:"k"`
	Rounds *int    `json:"rounds"`
	Bound  *int    `json:"bound"`
}

// SizeOverload is the bill of one design overload k.
type SizeOverload struct {
	K float64 `json:"k"`
	// RoundsBound is Prop. 2's lower bound on the rounds; nil when no number
	// of rounds can do it (g ≤ 1, or the dead band: the controller never
	// scales on saturation).
	RoundsBound           *int    `json:"roundsBound"`
	Rounds                *int    `json:"rounds"`
	TimeToCapacitySeconds *int    `json:"timeToCapacitySeconds"`
	PeakReplicas          int     `json:"peakReplicas"`
	NeededReplicas        int     `json:"neededReplicas"`
	Overshoot             float64 `json:"overshoot"`
	PeakBacklog           float64 `json:"peakBacklog"`
	PeakWaitSeconds       float64 `json:"peakWaitSeconds"`
	DrainedAtSeconds      *int    `json:"drainedAtSeconds"`
	// StatusUtilization is what the HPA status showed at the end of the
	// run: the first-pass utilization, unready pods left out (it reads
	// 100 % while the decision runs on a diluted figure, and in the dead
	// band while nothing is ordered).
	StatusUtilization int32        `json:"statusUtilization"`
	ScaleEvents       []ScaleEvent `json:"scaleEvents"`
	Timeline          *Timeline    `json:"timeline,omitempty"`
}

// ScaleEvent is one change of the replica count.
type ScaleEvent struct {
	T    int   `json:"t"`
	From int32 `json:"from"`
	To   int32 `json:"to"`
}

// TimeBill prices a backlog signal (KEDA AverageValue queue metrics).
type TimeBill struct {
	StandingDelaySeconds         float64 `json:"standingDelaySeconds"`
	RequiredStandingDelaySeconds float64 `json:"requiredStandingDelaySeconds"`
	MarginSeconds                float64 `json:"marginSeconds"`
	Phi                          float64 `json:"phi"`
	WindowInDeadTimes            float64 `json:"windowInDeadTimes"`
	Hunts                        bool    `json:"hunts"`
	// StatsWindowSeconds is the tail of the 20-hour run the replica
	// statistics cover: the last hour (Definition 5), or three cycles when
	// the window makes a cycle longer than that.
	StatsWindowSeconds int     `json:"statsWindowSeconds"`
	ReplicasMin        int32   `json:"replicasMin"`
	ReplicasMax        int32   `json:"replicasMax"`
	ReplicasMean       float64 `json:"replicasMean"`
	ReplicasP5         float64 `json:"replicasP5"`
	ReplicasP95        float64 `json:"replicasP95"`
	NeededReplicas     int     `json:"neededReplicas"`
	// PeakBacklog (messages) and PeakWaitSeconds (the FIFO wait of the
	// worst second's arrivals) over the whole run.
	PeakBacklog     float64 `json:"peakBacklog"`
	PeakWaitSeconds float64 `json:"peakWaitSeconds"`
	// SwingFraction is (max - min) / needed over the statistics window.
	SwingFraction float64 `json:"swingFraction"`
	// MeanOverNeed is mean / needed - 1 over the statistics window.
	MeanOverNeed float64 `json:"meanOverNeed"`
	// LatencyFloorSeconds is τ_eff·Φ(W_eff/τ_eff) (Cor. 3).
	LatencyFloorSeconds float64 `json:"latencyFloorSeconds"`
	// Remedies: the threshold (messages per pod) that rests with a 15 %
	// margin, the longest window (s) that rests at today's threshold, and
	// the longest dead time (s) that would rest; nil when none exists.
	ThresholdToRest *float64 `json:"thresholdToRest"`
	WindowToRest    *int     `json:"windowToRest"`
	DeadTimeToRest  *int     `json:"deadTimeToRest"`
	// ScaleFromZero prices the first message after an idle period of a
	// ScaledObject that scales to zero; absent for any other autoscaler.
	ScaleFromZero *ScaleFromZero `json:"scaleFromZero,omitempty"`
	Timeline      *Timeline      `json:"timeline,omitempty"`
	// PhiCurve is Φ sampled over the windows the Φ plot shows, with the
	// closed forms it is drawn against: the plot reads it, so a saved
	// report redraws its own figure. Left out where no plot is drawn.
	PhiCurve []PhiPoint `json:"phiCurve,omitempty"`
}

// PhiPoint is Φ at one window W (in dead times) and its two closed forms
// where each is quoted: harmonic balance (Prop. 5a) where it is defined,
// the long-window form from the default window up.
type PhiPoint struct {
	W               float64  `json:"w"`
	Phi             float64  `json:"phi"`
	HarmonicBalance *float64 `json:"harmonicBalance,omitempty"`
	LongWindow      *float64 `json:"longWindow,omitempty"`
}

// Timeline is a down-sampled series for plots and Mermaid charts; T is in
// seconds after the demand step.
type Timeline struct {
	T        []int     `json:"t"`
	Replicas []int32   `json:"replicas"`
	Serving  []int32   `json:"serving,omitempty"`
	Needed   []float64 `json:"needed,omitempty"`
	Backlog  []float64 `json:"backlog,omitempty"`
	Wait     []float64 `json:"waitSeconds,omitempty"`
}

// ReasonRestsOnDefaults is the verdict reason of a workload whose only
// failures rest on built-in defaults.
const ReasonRestsOnDefaults = "rests on defaults"

// Summary is the measurement in a few words, as list and explain show it:
// "measured p90 over 7d, 312 pods, 2026-12-01"; "" when m is nil. key is
// the assumption's ("deadTime"), which decides what a sample is.
func (m *Measured) Summary(key string) string {
	if m == nil {
		return ""
	}
	at, _ := time.Parse(time.RFC3339, m.At)
	return units.Measurement(m.Quantile, m.Window, m.Samples, units.SampleUnit(key), at)
}
