//go:build !linux

package client

func ThreadCPU() (int64, bool)  { return 0, false }
func ProcessCPU() (int64, bool) { return 0, false }
