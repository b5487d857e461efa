package render

// CorpusJobs lets the external benchmark that adds extraction
// (render_test.BenchmarkRenderExtractCorpus) time the same renders.
var CorpusJobs = corpusJobs
