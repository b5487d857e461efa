package rules

import (
	"time"

	"github.com/capreport/capreport/contract"
)

// Options configure Build.
type Options struct {
	// Tool names the producer in the report.
	Tool contract.Tool
	// Now stamps GeneratedAt; nil leaves it empty (golden tests).
	Now func() time.Time
	// Workers simulate in parallel; 0 means one per CPU.
	Workers int
	// Progress, if set, is called after each workload is priced.
	Progress func(done, total int)
	// NoTimelines leaves the down-sampled series out of the report.
	NoTimelines bool
	// NoRoundsCurve leaves out the rounds-against-k sweep
	// (SizeBill.RoundsCurve): a dozen simulations per Size bill that only
	// the JSON report, the Markdown details and the rounds plot show, so a
	// caller rendering none of them need not pay for it.
	NoRoundsCurve bool
	// NoPhiCurve leaves out the Φ samples of a Time bill
	// (TimeBill.PhiCurve), which only the JSON report and the Φ plot use.
	NoPhiCurve bool
	// FailOnDefaults keeps the severity of findings that rest on built-in
	// defaults (--strict, failOnDefaults: true); by default they are at
	// most warnings.
	FailOnDefaults bool
	// CacheDir, when set, is the bill cache (cache.go): a workload whose
	// inputs were priced before is read from it instead of simulated.
	CacheDir string
}
