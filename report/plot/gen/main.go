// Command gen writes the example plots of docs/plots from the essays'
// specimens priced by capreport's own model (rules.PriceSize and
// rules.PriceTime): the Size specimen at 3x, 10x and 30x, and the Time kit
// hunting at a 60-s standing delay. (The plot tests use the hand-made
// fixtures of report/plot/internal/sample instead, so that they check the
// drawing, not the model.)
//
//	go run ./report/plot/gen            # writes docs/plots/
//	go run ./report/plot/gen -out DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/analyze/sim"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/plot"
	"github.com/capreport/capreport/rules"
)

func main() {
	out := flag.String("out", "docs/plots", "directory to write the example plots to")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	size, hunt := specimen(), kit()
	jobs := []struct {
		file string
		w    contract.Workload
		fn   func(contract.Workload, string) (plot.Figure, error)
	}{
		{"size", size, plot.Size},
		{"rounds", size, plot.Rounds},
		{"time", hunt, plot.Time},
		{"phi", hunt, plot.Phi},
	}
	for _, j := range jobs {
		for _, format := range []string{plot.FormatSVG, plot.FormatPNG} {
			f, err := j.fn(j.w, format)
			if err != nil {
				return err
			}
			path := filepath.Join(dir, j.file+"."+format)
			if err := os.WriteFile(path, f.Data, 0o644); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
			fmt.Printf("%s\t%d bytes\t%s\n", path, len(f.Data), f.Title)
		}
	}
	return nil
}

// specimen is the Size row's running specimen, priced at 3x, 10x and 30x:
// 10 pods at a 50 % CPU target, limit = request = 1 core, 100 req/s per pod
// at 100 %, dead time 90 s, 30-s metric window, a 30-s latency target.
func specimen() contract.Workload {
	bill, err := rules.PriceSize(rules.SizeModel{
		Run: sim.SizeOptions{
			Controller:   sim.Controller{Config: hpa.DefaultConfig(), MinReplicas: 10, MaxReplicas: 100_000},
			Pods:         10,
			RequestMilli: 1000,
			LimitMilli:   1000,
			Target:       50,
			PodRate:      100,
			DeadTime:     90,
			MetricWindow: 30,
			Series:       true,
		},
		Overloads:     []float64{3, 10, 30},
		LatencyTarget: 30,
		RoundsCurve:   true,
	})
	if err != nil {
		panic("gen: the specimen must price: " + err.Error())
	}
	w := workload("shop", "HorizontalPodAutoscaler", "web", "saturating", 10, 100_000)
	w.Metrics = []contract.Metric{{Type: "Resource", Name: "cpu", Target: "50%", Signal: "saturating"}}
	w.Assumptions = map[string]contract.Assumption{
		"deadTime":      {Value: "1m30s", From: "annotation"},
		"podRate":       {Value: "100", From: "annotation"},
		"latencyTarget": {Value: "30s", From: "annotation"},
		"overload":      {Value: "3x,10x,30x", From: "annotation"},
	}
	w.Size = bill
	w.Verdict = contract.VerdictFail
	return w
}

// kit is the cluster kit of "The Delay a Window Demands" at a standing
// delay of 60 s under the default 300-s window: demand steps from 50 to 200
// messages/s, pods consume 10/s after a 90-s dead time, ceiling 100. It
// hunts between 6 and 35 pods for 20 needed.
func kit() contract.Workload {
	cfg := hpa.DefaultConfig()
	cfg.DownscaleStabilizationWindow = 300 * time.Second
	bill, err := rules.PriceTime(rules.TimeModel{
		Controller: sim.Controller{Config: cfg, MinReplicas: 1, MaxReplicas: 100},
		PodRate:    10,
		Threshold:  600,
		DeadTime:   90,
		Window:     300,
		Demand:     50,
		Step:       4,
		Timeline:   true,
		PhiCurve:   true,
	})
	if err != nil {
		panic("gen: the kit must price: " + err.Error())
	}
	w := workload("jobs", "ScaledObject", "orders", "backlog", 1, 100)
	w.Metrics = []contract.Metric{{Type: "External", Name: "s0-kafka-orders", Target: "AverageValue 600", Signal: "backlog", Trigger: "kafka"}}
	w.Assumptions = map[string]contract.Assumption{
		"deadTime": {Value: "1m30s", From: "annotation"},
		"podRate":  {Value: "10", From: "annotation"},
		"demand":   {Value: "50", From: "annotation"},
	}
	w.Time = bill
	w.Verdict = contract.VerdictFail
	return w
}

func workload(ns, kind, name, signal string, minR, maxR int32) contract.Workload {
	apiVersion := "autoscaling/v2"
	if kind == "ScaledObject" {
		apiVersion = "keda.sh/v1alpha1"
	}
	return contract.Workload{
		ID:          ns + "/" + kind + "/" + name,
		Autoscaler:  contract.Ref{APIVersion: apiVersion, Kind: kind, Name: name, Namespace: ns},
		Target:      contract.Ref{APIVersion: "apps/v1", Kind: "Deployment", Name: name, Namespace: ns},
		TargetFound: true,
		Source:      contract.Location{File: "deploy/" + name + ".yaml", Line: 1},
		Signal:      signal,
		MinReplicas: minR,
		MaxReplicas: maxR,
		Findings:    []contract.Finding{},
	}
}
