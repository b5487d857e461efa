package main

import (
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/capreport/capreport/contract"
)

// report is everything printReport prints.
type report struct {
	path      string
	rep       *contract.Report
	plan      plan
	s         settings
	capreport []usage
	clis      []usage
	failures  map[string]string
	load      [2]string
	commit    string
}

func printReport(w io.Writer, r report) {
	c, l := median(r.capreport), median(r.clis)
	commit := ""
	if r.commit != "" {
		commit = " at " + r.commit
	}
	fmt.Fprintf(w, "repository:  %s%s\n", r.path, commit)
	fmt.Fprintf(w, "sources:     %d in capreport's report (%s), %d of them failed in capreport\n",
		len(r.rep.Sources), counts(r.plan.types), failedSources(r.rep))
	fmt.Fprintf(w, "CLI side:    %d processes per round, %d at once; %d exited non-zero\n", len(r.plan.jobs), r.s.jobs, len(r.failures))
	for _, why := range slices.Sorted(maps.Keys(r.plan.omitted)) {
		fmt.Fprintf(w, "             not run: %d %s\n", r.plan.omitted[why], why)
	}
	fmt.Fprintf(w, "rounds:      %d after %s, median by CPU shown; CPU capreport %s, CLIs %s\n",
		len(r.capreport), warm(r.s.warmup), spread(r.capreport), spread(r.clis))
	fmt.Fprintf(w, "load:        %s before, %s after (1, 5, 15 min; %d CPUs); benchrepo's own sampling took %s of CPU\n\n",
		r.load[0], r.load[1], runtime.NumCPU(), secs(selfCPU()))
	fmt.Fprintf(w, "| | CPU (user+sys) | wall | peak RSS, largest process | peak RSS, processes at once (sum) |\n|---|---|---|---|---|\n")
	row := func(name string, u usage) {
		fmt.Fprintf(w, "| %s | %s (%s + %s) | %s | %s | %s |\n", name, secs(u.cpu), secs(u.user), secs(u.sys), secs(u.wall), mb(u.maxRSS), mb(u.peakSum))
	}
	row("capreport", c)
	row("helm template + kustomize build", l)
	fmt.Fprintf(w, "| capreport / CLIs | %s | %s | %s | %s |\n", ratio(c.cpu, l.cpu), ratio(c.wall, l.wall),
		ratio(c.maxRSS, l.maxRSS), ratio(c.peakSum, l.peakSum))
	printFailures(w, r.failures)
}

func printFailures(w io.Writer, failures map[string]string) {
	if len(failures) == 0 {
		return
	}
	fmt.Fprintf(w, "\nCLI processes that exited non-zero (last round):\n")
	for i, label := range slices.Sorted(maps.Keys(failures)) {
		if i == 20 {
			fmt.Fprintf(w, "  ... and %d more\n", len(failures)-i)
			break
		}
		msg := errorLine(failures[label])
		if len(msg) > 160 {
			msg = msg[:160] + "…"
		}
		fmt.Fprintf(w, "  %s: %s\n", label, msg)
	}
}

// selfCPU is this process's own CPU time: the cost of sampling /proc.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// errorLine is the line of a CLI's standard error that says why it
// failed: the first "Error" line, else the first line.
func errorLine(stderr string) string {
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "Error") {
			return strings.TrimSpace(line)
		}
	}
	first, _, _ := strings.Cut(stderr, "\n")
	return first
}

func counts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func failedSources(rep *contract.Report) int {
	n := 0
	for _, s := range rep.Sources {
		if s.Status == "failed" {
			n++
		}
	}
	return n
}

func warm(on bool) string {
	if on {
		return "a warm-up round"
	}
	return "no warm-up"
}

func spread(runs []usage) string {
	lo, hi := runs[0].cpu, runs[0].cpu
	for _, u := range runs {
		lo, hi = min(lo, u.cpu), max(hi, u.cpu)
	}
	return secs(lo) + "–" + secs(hi)
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func mb(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/1e6) }

func ratio[T time.Duration | int64](a, b T) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}
