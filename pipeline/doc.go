// Package pipeline is the one path from a repository to a priced report
// that every command takes: configuration, render, extraction (Load),
// then the ledger (Build), or the same at a git revision (BuildAtRef).
// Commands fill a Settings from their flags and call it; no command calls
// another command's helpers.
package pipeline
