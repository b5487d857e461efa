// Command benchrepo measures capreport's whole pipeline on a repository
// against the reference command-line tools doing the same renders, one
// process per source, in one run. scripts/bench-repo.sh builds the three
// binaries and calls it; see that script for the usual way in.
//
//	go run ./scripts/benchrepo -capreport BIN -helm BIN -kustomize BIN PATH [capreport flags]
//
// The capreport side is the real command, `capreport PATH --format json
// [flags]`, render workers included. The CLI side is derived from that
// command's own JSON report: each Helm source of sources[] becomes one
// `helm template` process with the value set the report names (the
// configuration's value files and --set pairs, or the command line's -f and
// --set for a discovered chart, with the same release name, namespace,
// Kubernetes version and API versions), and each Kustomize source one
// `kustomize build` process. Plain YAML has no CLI counterpart, and sources
// capreport skipped (library charts) or replaced by a GitOps delivery are
// not run; the report says how many.
//
// Both sides are measured the same way: CPU is user + system time of every
// process the side ran (the kernel's rusage of waited-for children, so
// capreport's render workers count); peak RSS is the largest single
// process (ru_maxrss); the sum is the most RSS the side's processes held
// at once, sampled from /proc every 20 ms (capreport's parent and its
// workers together; the CLIs running at once, -jobs of them). Needs Linux
// /proc.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
)

func main() {
	var s settings
	flag.StringVar(&s.capreport, "capreport", "capreport", "capreport binary")
	flag.StringVar(&s.helm, "helm", "helm", "helm binary")
	flag.StringVar(&s.kustomize, "kustomize", "kustomize", "kustomize binary")
	flag.IntVar(&s.count, "count", 3, "measured rounds of each side (the median is shown)")
	flag.IntVar(&s.jobs, "jobs", runtime.NumCPU(), "CLI processes run at once (capreport renders this many sources at once on this machine)")
	flag.IntVar(&s.timeout, "timeout", 300, "seconds one CLI process may take before it is killed (counted as failed)")
	flag.BoolVar(&s.warmup, "warmup", true, "run each side once unmeasured first (page cache)")
	flag.StringVar(&s.keep, "keep", "", "write capreport's report and the CLI commands into this directory")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: benchrepo [flags] PATH [capreport flags]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 || s.count < 1 || s.jobs < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(s, flag.Arg(0), flag.Args()[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "benchrepo:", err)
		os.Exit(1)
	}
}
