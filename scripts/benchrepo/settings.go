package main

// settings are benchrepo's own flags.
type settings struct {
	capreport, helm, kustomize string
	count                      int
	jobs                       int
	timeout                    int
	warmup                     bool
	keep                       string
}
