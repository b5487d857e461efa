package laws

// A Law names one of the ledger's laws, for the checks that stand behind
// it (Evidence).
type Law string

// The laws of the ledger.
const (
	// RoundsLaw is the Size row: at most one factor of g per round, from
	// "One Bit per Dead Time" (Rounds, GrowthFactor).
	RoundsLaw Law = "one factor per round"
	// DeadBandLaw is Corollary 1 of the same essay: a target above the
	// ceiling's tolerance never scales up (DeadBand).
	DeadBandLaw Law = "the dead band"
	// StandingDelayLaw is the Time row: the standing delay a window
	// demands, τ_eff Φ(W_eff/τ_eff), from "The Delay a Window Demands"
	// (RequiredStandingDelay).
	StandingDelayLaw Law = "the delay a window demands"
	// FirstMessageLaw is the wait of the first message after a
	// ScaledObject idles at zero (FirstMessageWait).
	FirstMessageLaw Law = "the first message's wait"
	// KEDAConversionLaw is not a law of the essays but the step before
	// them: the HPA that KEDA builds from a ScaledObject.
	KEDAConversionLaw Law = "KEDA's HPA"
)

// A Check is one of the checks behind a law (docs/fidelity.md lists them
// all): what it compares for that law and where in the repository it is.
type Check struct {
	Name  string
	What  string
	Where string // a path from the repository's root
}

// The checks, by the name docs/fidelity.md gives them.
var (
	essayFigures = Check{Name: "the essays' figures", Where: "analyze/sim"}
	oracle       = Check{Name: "the oracle", Where: "analyze/laws"}
	upstream     = Check{Name: "the upstream differential", Where: "internal/upstreamdiff"}
	kedaDiff     = Check{Name: "the KEDA differential", Where: "internal/kedadiff"}
	twin         = Check{Name: "the twin", Where: "docs/fidelity.md"}
)

func with(c Check, what string) Check { c.What = what; return c }

// evidence is what stands behind each law. The twin runs KEDA's own
// operator and metrics adapter, so the scale-from-zero wait and KEDA's
// HPA have a twin check too.
var evidence = map[Law][]Check{
	RoundsLaw: {
		with(essayFigures, "the specimen's and the kit's orders, capacity times and peaks"),
		with(oracle, "the round bound against the simulated rounds"),
		with(upstream, "the replica calculation and the scale-up limit, against Kubernetes v1.34.0's code"),
		with(twin, "part 1 F1-F3: the orders, the time to capacity and the peaks on a genuine control plane"),
	},
	DeadBandLaw: {
		with(essayFigures, "the first recommendation at each target"),
		with(oracle, "the closed form against the calculator"),
		with(upstream, "the tolerance and the whole-percent truncation of the replica calculation"),
		with(twin, "part 1 F4: no scale-up at 93 %, the status at 100 %"),
	},
	StandingDelayLaw: {
		with(essayFigures, "the kit's and the opening's bands and cycle"),
		with(oracle, "Φ's table against the integrator"),
		with(upstream, "the external per-pod calculation and the stabilization window"),
		with(twin, "part 2 F1-F3: resting or hunting, with its band, on a genuine control plane"),
	},
	FirstMessageLaw: {
		with(oracle, "the wait term by term"),
		with(kedaDiff, "the HPA floor KEDA leaves at zero"),
		with(twin, "scale from zero: KEDA v2.19.0's operator polling, the first message's wait near its supremum and its least"),
	},
	KEDAConversionLaw: {
		with(kedaDiff, "the HPA built from each ScaledObject, against KEDA v2.19.0's code"),
		with(twin, "part 2: the HPA KEDA's operator builds, read through its metrics adapter"),
	},
}

// Evidence lists the checks behind law, strongest last.
func Evidence(law Law) []Check { return evidence[law] }
