package simulate

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/analyze/laws"
	"github.com/capreport/capreport/analyze/phi"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/internal/units"
)

// phiOptions are the raw flags of `capreport phi`; numbers stay strings so
// that a bad value is reported in our words, naming the flag.
type phiOptions struct {
	ios                 *cmdutil.IOStreams
	w, deadTime, window string
	format              string
	// Which of the exclusive flags were given (cobra's Changed), filled in
	// before runF so that parsing tests see them too.
	wSet, deadTimeSet, windowSet bool
}

// phiOutput is the JSON contract of `capreport phi --format json`. The
// dead-time fields appear only when --dead-time was given.
type phiOutput struct {
	W             float64  `json:"w"`
	Phi           float64  `json:"phi"`
	PhiClosedForm *float64 `json:"phiClosedForm"` // null: w < 1, outside Prop. 5a
	PhiAsymptotic *float64 `json:"phiAsymptotic"` // null: w ≤ 0.07, where the form means nothing

	DeadTimeSeconds              *float64 `json:"deadTimeSeconds,omitempty"`
	WindowSeconds                *float64 `json:"windowSeconds,omitempty"`
	EffectiveDeadTimeSeconds     *float64 `json:"effectiveDeadTimeSeconds,omitempty"`
	EffectiveWindowSeconds       *float64 `json:"effectiveWindowSeconds,omitempty"`
	EffectiveW                   *float64 `json:"effectiveW,omitempty"`
	PhiEffective                 *float64 `json:"phiEffective,omitempty"`
	RequiredStandingDelaySeconds *float64 `json:"requiredStandingDelaySeconds,omitempty"`
}

// NewCmdPhi builds the command; runF, when set, receives the parsed options
// instead of running (flag-parsing tests).
func NewCmdPhi(f *cmdutil.Factory, runF func(*phiOptions) error) *cobra.Command {
	o := &phiOptions{ios: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "phi",
		Short: "Read Φ, the standing delay a backlog-scaled loop needs to rest",
		Long: "Φ(w) is the standing delay, in dead times, that a queue consumer scaled on its\n" +
			"backlog needs in order to rest under a downscale window of w dead times\n" +
			"(\"The Delay a Window Demands\", Proposition 4: it rests iff D ≥ τ·Φ(W/τ)).\n" +
			"Give --w directly, or --dead-time and --window to get the ledger's required\n" +
			"standing delay τ_eff·Φ(W_eff/τ_eff), with 10 s of sampling added to each.\n" +
			"Values come from a table computed once from the idealized loop.",
		Example: "  capreport phi --w 3.33\n" +
			"  capreport phi --dead-time 90s --window 300s --format json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fl := cmd.Flags()
			o.wSet, o.deadTimeSet, o.windowSet = fl.Changed("w"), fl.Changed("dead-time"), fl.Changed("window")
			if runF != nil {
				return runF(o)
			}
			return runPhi(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.w, "w", "", "window in dead times, W/τ (≥ 0)")
	fl.StringVar(&o.deadTime, "dead-time", "", "dead time τ: order of a pod to its first consumed message (e.g. 90s)")
	fl.StringVar(&o.window, "window", "300s", "downscale stabilization window W, with --dead-time")
	fl.StringVarP(&o.format, "format", "o", "text", "output format: text or json")
	return cmd
}

// phiInput is the validated question: either a bare w, or a dead time and
// a window in seconds.
type phiInput struct {
	w                float64
	byTime           bool
	deadTime, window float64
}

func parsePhiFlags(o *phiOptions) (phiInput, error) {
	if err := cmdutil.CheckFormat(o.format, "text", "json"); err != nil {
		return phiInput{}, err
	}
	switch {
	case o.wSet && o.deadTimeSet:
		return phiInput{}, cmdutil.FlagErrorf("w", "cannot be combined with --dead-time: give w = W/τ, or the dead time and window")
	case o.wSet && o.windowSet:
		return phiInput{}, cmdutil.FlagErrorf("window", "goes with --dead-time, not --w")
	case !o.wSet && !o.deadTimeSet:
		if o.windowSet {
			return phiInput{}, cmdutil.FlagErrorf("dead-time", "needed with --window: Φ measures the window in dead times")
		}
		return phiInput{}, cmdutil.FlagErrorf("w", "give --w (the window in dead times) or --dead-time [--window]")
	}
	if o.wSet {
		w, err := strconv.ParseFloat(strings.TrimSpace(o.w), 64)
		if err != nil || math.IsNaN(w) || math.IsInf(w, 0) {
			return phiInput{}, cmdutil.FlagErrorf("w", "%q is not a number, expected e.g. 3.33", o.w)
		}
		if w < 0 {
			return phiInput{}, cmdutil.FlagErrorf("w", "%q must be 0 or more (a window in dead times)", o.w)
		}
		return phiInput{w: w}, nil
	}
	tau, err := parsePhiSeconds("dead-time", o.deadTime)
	if err != nil {
		return phiInput{}, err
	}
	if tau == 0 {
		return phiInput{}, cmdutil.FlagErrorf("dead-time", "%q must be positive: Φ measures the window in dead times", o.deadTime)
	}
	win, err := parsePhiSeconds("window", o.window)
	if err != nil {
		return phiInput{}, err
	}
	return phiInput{w: win / tau, byTime: true, deadTime: tau, window: win}, nil
}

// parsePhiSeconds reads a duration ("90s", "1m30s") or a bare number of
// seconds ("90"); fractions are fine, since the law is not a clock.
func parsePhiSeconds(flag, s string) (float64, error) {
	v := strings.TrimSpace(s)
	sec, err := strconv.ParseFloat(v, 64)
	if err != nil {
		d, derr := time.ParseDuration(v)
		if derr != nil {
			return 0, cmdutil.FlagErrorf(flag, "%q is not a duration, expected e.g. 90s or 5m", s)
		}
		sec = d.Seconds()
	}
	if math.IsNaN(sec) || math.IsInf(sec, 0) {
		return 0, cmdutil.FlagErrorf(flag, "%q is not a duration, expected e.g. 90s or 5m", s)
	}
	if sec < 0 {
		return 0, cmdutil.FlagErrorf(flag, "%q must not be negative", s)
	}
	return sec, nil
}

func runPhi(o *phiOptions) error {
	ios := o.ios
	in, err := parsePhiFlags(o)
	if err != nil {
		return err
	}
	out := phiAnswer(in)
	if o.format == "json" {
		return cmdutil.WriteJSON(ios.Out, out)
	}
	printPhi(ios.Out, out)
	return nil
}

// phiAnswer reads everything off the table and the closed forms: no
// integration, so the command answers in well under a millisecond.
func phiAnswer(in phiInput) phiOutput {
	out := phiOutput{W: in.w, Phi: phi.Phi(in.w)}
	if hb, ok := phi.PhiHarmonicBalance(in.w); ok {
		out.PhiClosedForm = &hb
	}
	if asym := phi.PhiAsymptotic(in.w); asym > 0 {
		out.PhiAsymptotic = &asym
	}
	if in.byTime {
		te, we := laws.EffectiveDeadTime(in.deadTime), laws.EffectiveWindow(in.window)
		wEff := we / te
		phiEff := phi.Phi(wEff)
		req := laws.RequiredStandingDelay(in.deadTime, in.window)
		out.DeadTimeSeconds, out.WindowSeconds = &in.deadTime, &in.window
		out.EffectiveDeadTimeSeconds, out.EffectiveWindowSeconds = &te, &we
		out.EffectiveW, out.PhiEffective = &wEff, &phiEff
		out.RequiredStandingDelaySeconds = &req
	}
	return out
}

func printPhi(w io.Writer, o phiOutput) {
	fmt.Fprintf(w, "Φ: the standing delay, in dead times, a backlog-scaled loop needs to rest\n")
	if o.DeadTimeSeconds != nil {
		fmt.Fprintf(w, "  dead time τ, window W   %s, %s\n", fmtPhiSeconds(*o.DeadTimeSeconds), fmtPhiSeconds(*o.WindowSeconds))
	}
	fmt.Fprintf(w, "  w = W/τ                 %.4g\n", o.W)
	fmt.Fprintf(w, "  Φ(w)                    %.3f (computed curve)\n", o.Phi)
	// The notes quote the essay's error bounds only where they hold.
	switch {
	case o.PhiClosedForm != nil && o.W <= 3.34:
		fmt.Fprintf(w, "  Φ_hb(w)                 %.3f (harmonic balance, Prop. 5a; high by ≤ 3.3%% up to w = 3.33)\n", *o.PhiClosedForm)
	case o.PhiClosedForm != nil:
		fmt.Fprintf(w, "  Φ_hb(w)                 %.3f (harmonic balance, Prop. 5a; too high past w = 3.33: 9%% at 5, 34%% at 10)\n", *o.PhiClosedForm)
	default:
		fmt.Fprintf(w, "  Φ_hb(w)                 n/a (Prop. 5a needs w ≥ 1)\n")
	}
	switch {
	case o.PhiAsymptotic != nil && o.W >= 3.32:
		fmt.Fprintf(w, "  Φ asymptotic            %.3f (e/(1 + 30.6/ln²(w/0.07)); low by ≤ 2.7%% from w = 3.33)\n", *o.PhiAsymptotic)
	case o.PhiAsymptotic != nil:
		fmt.Fprintf(w, "  Φ asymptotic            %.3f (e/(1 + 30.6/ln²(w/0.07)); a long-window form, too low here)\n", *o.PhiAsymptotic)
	default:
		fmt.Fprintf(w, "  Φ asymptotic            n/a (the long-window form needs w > 0.07)\n")
	}
	fmt.Fprintf(w, "  ceiling                 e = %.3f (D ≥ e·τ rests whatever the window)\n", phi.Ceiling)
	if o.RequiredStandingDelaySeconds != nil {
		fmt.Fprintf(w, "Deployed loop (sampling adds %.0f s to each branch)\n", laws.SamplingDelay)
		fmt.Fprintf(w, "  τ_eff, W_eff            %s, %s (w_eff = %.4g)\n",
			fmtPhiSeconds(*o.EffectiveDeadTimeSeconds), fmtPhiSeconds(*o.EffectiveWindowSeconds), *o.EffectiveW)
		fmt.Fprintf(w, "  Φ(w_eff)                %.3f\n", *o.PhiEffective)
		fmt.Fprintf(w, "  required standing delay %s = τ_eff·Φ(W_eff/τ_eff); a threshold of T messages\n", units.Duration(*o.RequiredStandingDelaySeconds))
		fmt.Fprintf(w, "                          per pod at c per second rests iff T/c is at least this\n")
	}
}

func fmtPhiSeconds(s float64) string { return units.Duration(s) }
