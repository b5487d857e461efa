package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/genrepo"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/rules"
)

// runPipeline runs render, extraction and pricing on a directory.
func runPipeline(b *testing.B, dir string) *contract.Report {
	rp, err := pipeline.Load(context.Background(), []string{dir}, pipeline.Settings{Isolate: true})
	if err != nil {
		b.Fatal(err)
	}
	r, err := rules.Build(context.Background(), dir, rp.Rendered, rp.Inventory, rp.Config, rules.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// benchPipeline reports the cost per autoscaler, in wall time and in CPU
// time (which, unlike the wall time, does not shrink with more cores nor
// grow when other processes share them; the render workers' included, as
// worker-cpu-ns/autoscaler shows), how many cores the run kept busy (CPU
// time over wall time), and the memory: the peak heap of this process
// (which holds every rendered object and the report) per autoscaler, and
// the largest render worker's peak RSS. Linear cost is a flat
// cpu-ns/autoscaler across sizes; bounded memory a flat
// peak-heap-B/autoscaler and a worker RSS that does not grow.
func benchPipeline(b *testing.B, dir string) {
	var n int
	b.ReportAllocs()
	runtime.GC()
	heap := testutil.StartHeapPeak()
	children0, _ := testutil.ChildrenCPUTime()
	cpu0, wall0 := testutil.CPUTime(), time.Now()
	for b.Loop() {
		n = len(runPipeline(b, dir).Workloads)
	}
	wall := time.Since(wall0)
	children, workerRSS := testutil.ChildrenCPUTime()
	workers := children - children0
	cpu := testutil.CPUTime() - cpu0 + workers
	peak := heap.Stop()
	if n == 0 {
		b.Fatal("no autoscaler priced")
	}
	per := func(v float64) float64 { return v / float64(b.N) / float64(n) }
	b.ReportMetric(per(float64(wall.Nanoseconds())), "ns/autoscaler")
	b.ReportMetric(per(float64(cpu.Nanoseconds())), "cpu-ns/autoscaler")
	b.ReportMetric(per(float64(workers.Nanoseconds())), "worker-cpu-ns/autoscaler")
	b.ReportMetric(float64(cpu)/float64(wall), "cores-used")
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(float64(peak)/float64(n), "peak-heap-B/autoscaler")
	b.ReportMetric(float64(workerRSS)/1e6, "worker-maxrss-MB")
}

// BenchmarkPipelineGenerated runs the whole pipeline (render in worker
// processes, extract, price) on generated repositories of 100, 1,000 and
// 10,000 autoscalers. 10,000 takes about a minute and is left out by
// -short; -bench 'PipelineGenerated/1000$' picks one size.
func BenchmarkPipelineGenerated(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if n > 1000 && testing.Short() {
				b.Skip("10,000 autoscalers: not with -short")
			}
			dir := filepath.Join(b.TempDir(), "repo")
			if err := genrepo.Write(dir, n); err != nil {
				b.Fatal(err)
			}
			benchPipeline(b, dir)
		})
	}
}

func BenchmarkPipelineCorpus(b *testing.B) {
	corpus := testutil.Corpus(b)
	benchPipeline(b, corpus)
}

// BenchmarkPlotsVsSimulations prices a generated repository of 1,000
// autoscalers and draws every workload's plots (SVG, as --format html and
// --out do), reporting the CPU each costs per workload: the plots must cost
// less than the simulations that feed them.
func BenchmarkPlotsVsSimulations(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "repo")
	if err := genrepo.Write(dir, 1000); err != nil {
		b.Fatal(err)
	}
	rp, err := pipeline.Load(context.Background(), []string{dir}, pipeline.Settings{Isolate: true})
	if err != nil {
		b.Fatal(err)
	}
	var simCPU, plotCPU time.Duration
	var n int
	for b.Loop() {
		c0 := testutil.CPUTime()
		r, err := rules.Build(context.Background(), dir, rp.Rendered, rp.Inventory, rp.Config, rules.Options{})
		if err != nil {
			b.Fatal(err)
		}
		c1 := testutil.CPUTime()
		if _, err := cmdutil.SVGPlots(*r); err != nil {
			b.Fatal(err)
		}
		simCPU += c1 - c0
		plotCPU += testutil.CPUTime() - c1
		n = len(r.Workloads)
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) / float64(n) }
	b.ReportMetric(per(simCPU), "sim-cpu-µs/workload")
	b.ReportMetric(per(plotCPU), "plot-cpu-µs/workload")
	if plotCPU >= simCPU {
		b.Errorf("plots cost %v of CPU, the simulations %v", plotCPU, simCPU)
	}
}

// pricedRepo prices a generated repository of n autoscalers once, outside
// any timed loop: the format benchmarks time the writing, not the pricing
// (BenchmarkPipelineGenerated times that).
func pricedRepo(b *testing.B, n int) contract.Report {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "repo")
	if err := genrepo.Write(dir, n); err != nil {
		b.Fatal(err)
	}
	r := runPipeline(b, dir)
	if len(r.Workloads) != n {
		b.Fatalf("priced %d autoscalers of %d", len(r.Workloads), n)
	}
	return *r
}

// formatSizes are the report sizes every format is benchmarked at.
var formatSizes = []int{100, 1000, 10000}

// BenchmarkFormats times each format, and --out (every format and every
// plot file), on priced generated repositories of 100, 1,000 and 10,000
// autoscalers (-bench 'Formats/1000/' picks one size; each is priced only
// when selected), reporting the cost per autoscaler: it must stay flat as
// the report grows. A renderer that rescans its output once per workload
// shows up as a cost per autoscaler that grows tenfold with the size.
func BenchmarkFormats(b *testing.B) {
	for _, n := range formatSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			r := pricedRepo(b, n)
			for _, f := range reportFormats {
				b.Run(f, func(b *testing.B) {
					benchPerAutoscaler(b, n, func() error {
						_, err := cmdutil.RenderFormat(r, f, cmdutil.FormatOptions{})
						return err
					})
				})
			}
			b.Run("out", func(b *testing.B) {
				benchPerAutoscaler(b, n, func() error { return cmdutil.WriteOutDir(b.TempDir(), r, false, nil) })
			})
		})
	}
}

// benchPerAutoscaler runs write in the benchmark loop and reports its cost
// per autoscaler of the report, in wall time and in CPU time (which, unlike
// the wall time, does not grow when other processes share the cores).
func benchPerAutoscaler(b *testing.B, n int, write func() error) {
	cpu0 := testutil.CPUTime()
	for b.Loop() {
		if err := write(); err != nil {
			b.Fatal(err)
		}
	}
	per := func(ns int64) float64 { return float64(ns) / float64(b.N) / float64(n) }
	b.ReportMetric(per(b.Elapsed().Nanoseconds()), "ns/autoscaler")
	b.ReportMetric(per((testutil.CPUTime() - cpu0).Nanoseconds()), "cpu-ns/autoscaler")
}

// corpusRepos renders every case of ../shared/corpus as its README does
// (release rel in demo, with capreport-values.yaml when the case has one),
// outside any timed loop: the real autoscalers, with the maxReplicas,
// targets and overloads that real charts ship.
func corpusRepos(b *testing.B) []*pipeline.Repo {
	b.Helper()
	corpus := testutil.Corpus(b)
	ents, err := os.ReadDir(corpus)
	if err != nil {
		b.Fatal(err)
	}
	var repos []*pipeline.Repo
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(corpus, e.Name())
		s := pipeline.Settings{ReleaseName: "rel", Namespace: "demo", Isolate: true}
		if _, err := os.Stat(filepath.Join(dir, "capreport-values.yaml")); err == nil {
			s.Values = []string{filepath.Join(dir, "capreport-values.yaml")}
		}
		rp, err := pipeline.Load(context.Background(), []string{dir}, s)
		if err != nil {
			b.Fatal(err)
		}
		rp.Root = dir
		repos = append(repos, rp)
	}
	return repos
}

// BenchmarkPricingCorpus prices the real autoscalers of ../shared/corpus
// (rendered once, outside the loop) and reports the CPU time of pricing
// alone per autoscaler: CPU, not wall, because other processes share the
// cores. Real charts ship small ceilings that the design overloads cannot
// meet, which generated repositories rarely do (BenchmarkPricingGenerated).
// "all" prices for every output; "text" as the default text format does,
// without the rounds sweep it does not show.
func BenchmarkPricingCorpus(b *testing.B) {
	repos := corpusRepos(b)
	b.Run("all", func(b *testing.B) { benchPricing(b, repos, rules.Options{}) })
	b.Run("text", func(b *testing.B) { benchPricing(b, repos, rules.Options{NoRoundsCurve: true}) })
}

// BenchmarkPricingGenerated is BenchmarkPricingCorpus on a generated
// repository of 300 autoscalers.
func BenchmarkPricingGenerated(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "repo")
	if err := genrepo.Write(dir, 300); err != nil {
		b.Fatal(err)
	}
	rp, err := pipeline.Load(context.Background(), []string{dir}, pipeline.Settings{Isolate: true})
	if err != nil {
		b.Fatal(err)
	}
	rp.Root = dir
	repos := []*pipeline.Repo{rp}
	b.Run("all", func(b *testing.B) { benchPricing(b, repos, rules.Options{}) })
	b.Run("text", func(b *testing.B) { benchPricing(b, repos, rules.Options{NoRoundsCurve: true}) })
}

// benchPricing runs rules.Build over repos in the loop and reports the
// pricing's CPU time per autoscaler.
func benchPricing(b *testing.B, repos []*pipeline.Repo, opts rules.Options) {
	n := 0
	for _, rp := range repos {
		n += len(rp.Inventory.Autoscalers)
	}
	if n == 0 {
		b.Fatal("no autoscaler to price")
	}
	cpu0 := testutil.CPUTime()
	for b.Loop() {
		for _, rp := range repos {
			if _, err := rules.Build(context.Background(), rp.Root, rp.Rendered, rp.Inventory, rp.Config, opts); err != nil {
				b.Fatal(err)
			}
		}
	}
	per := func(ns int64) float64 { return float64(ns) / float64(b.N) / float64(n) }
	b.ReportMetric(float64(n), "autoscalers")
	b.ReportMetric(per(b.Elapsed().Nanoseconds()), "ns/autoscaler")
	b.ReportMetric(per((testutil.CPUTime() - cpu0).Nanoseconds()), "cpu-ns/autoscaler")
}
