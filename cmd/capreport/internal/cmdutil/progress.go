package cmdutil

import (
	"fmt"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Phases of a run's progress besides the pipeline's.
const phasePlots = "writing plots"

// ProgressInterval is how often a run without a terminal says how far it
// is; tests shorten it.
var ProgressInterval = 5 * time.Second

// BarDelay is how long a run on a terminal stays quiet before it draws a
// bar: a run that ends sooner prints none; tests shorten it.
var BarDelay = time.Second

// Progress says on standard error how far a long run is, phase by phase
// (sources rendered N/M, autoscalers priced N/M, plots written N/M): a bar
// on a terminal once the run has taken a second, else (every CI log) a
// plain line at most every ProgressInterval and when a phase that printed
// ends. Its update is called from several goroutines at once.
type Progress struct {
	ios   *IOStreams
	now   func() time.Time
	start time.Time

	mu    sync.Mutex
	phase string
	bar   *progressbar.ProgressBar
	last  time.Time // the last plain line
	said  bool      // the phase printed a plain line
}

// NewProgress is the run's progress reporter; nil (report nothing) with
// --quiet.
func NewProgress(ios *IOStreams, quiet bool, now func() time.Time) *Progress {
	if quiet || ios == nil || ios.ErrOut == nil {
		return nil
	}
	return &Progress{ios: ios, now: now, start: now(), last: now()}
}

// Update records that done of total are through phase.
func (p *Progress) Update(phase string, done, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if phase != p.phase {
		p.finishBar()
		p.phase, p.said = phase, false
	}
	if p.ios.IsStderrTTY() {
		p.drawBar(done, total)
		return
	}
	now := p.now()
	if now.Sub(p.last) >= ProgressInterval || (done == total && p.said) {
		fmt.Fprintf(p.ios.ErrOut, "capreport: %s %d/%d\n", phase, done, total)
		p.last, p.said = now, true
	}
}

func (p *Progress) drawBar(done, total int) {
	if p.bar == nil {
		if p.now().Sub(p.start) < BarDelay {
			return
		}
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.ios.ErrOut),
			progressbar.OptionSetDescription(p.phase), progressbar.OptionClearOnFinish())
	}
	_ = p.bar.Set(done)
}

func (p *Progress) finishBar() {
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
}

// Fn is the reporter as the pipeline takes it; nil without one.
func (p *Progress) Fn() func(phase string, done, total int) {
	if p == nil {
		return nil
	}
	return p.Update
}
