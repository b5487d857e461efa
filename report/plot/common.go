package plot

import (
	"errors"

	"gonum.org/v1/plot/vg"

	"github.com/capreport/capreport/contract"
)

// What every figure's builder shares: the error of a workload without
// the data, its name on a figure, and the canvas sizes.

// ErrNoData is returned (wrapped) when a workload lacks what a figure needs,
// e.g. Size for a workload without a Size bill or without a timeline.
var ErrNoData = errors.New("no data for this figure")

// workloadID names a workload on its figures: its ID, or its autoscaler's
// namespace, kind and name.
func workloadID(w contract.Workload) string {
	if w.ID != "" {
		return w.ID
	}
	return w.Autoscaler.Namespace + "/" + w.Autoscaler.Kind + "/" + w.Autoscaler.Name
}

// Sizes of the figures: 960×576 px (one panel) and 960×768 px (two panels)
// at DPI.
var (
	figWidth      = vg.Length(10) * vg.Inch
	figHeight     = vg.Length(6) * vg.Inch
	figHeightTall = vg.Length(8) * vg.Inch
)
