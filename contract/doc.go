// Package contract is capreport's JSON report, capreport.io/report/v1
// (report/schema/report.v1.json): the types rules builds and every
// renderer, `diff`, `merge` and the comment commands read, with the few
// functions that derive from a report alone (the summary, the verdict
// order). It imports only check and internal/units, so what reads a saved
// report, possibly an untrusted artifact, links no Kubernetes, Helm or
// kustomize code.
package contract
