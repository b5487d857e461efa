package rules

import (
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/render"
)

// whereOf turns an assumption's origin into a report location.
func whereOf(o *render.Origin) *contract.Location {
	if o == nil || o.File == "" {
		return nil
	}
	return &contract.Location{File: o.File, Line: o.Line, Source: o.Source}
}
