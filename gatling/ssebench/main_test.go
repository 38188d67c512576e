package main

import (
	"os"
	"testing"
)

func TestThreadCoresSumsEachGroupBetweenReadings(t *testing.T) {
	before := map[string]threadTick{
		"10": {"reactor-http-ep", 100},
		"11": {"reactor-http-ep", 50},
		"12": {"data-plane-kafk", 10},
		"13": {"gone", 400},
	}
	after := map[string]threadTick{
		"10": {"reactor-http-ep", 300}, // +200 ticks
		"11": {"reactor-http-ep", 150}, // +100
		"12": {"data-plane-kafk", 10},  // idle: left out
		"14": {"C2 CompilerThre", 40},  // started in between: from zero
		"15": {"VM Periodic Tas", 0},   // under 0.001 core: left out
	}
	cores := threadCores(before, after, 10)
	want := map[string]float64{"reactor-http-ep": 0.3, "C2 CompilerThre": 0.04}
	if len(cores) != len(want) {
		t.Fatalf("groups %v, want %v", cores, want)
	}
	for group, c := range want {
		if cores[group] != c {
			t.Errorf("%s: %v cores, want %v", group, cores[group], c)
		}
	}
}

func TestThreadTicksGroupsThreadsByNameWithoutTheirNumber(t *testing.T) {
	ticks := threadTicks(os.Getpid())
	if len(ticks) == 0 {
		t.Fatal("no thread of this process read")
	}
	for tid, tick := range ticks {
		if tick.ticks < 0 || tick.group == "" || trailingNumber.MatchString(tick.group) {
			t.Errorf("thread %s: %+v", tid, tick)
		}
	}
	if trailingNumber.ReplaceAllString("reactor-http-epoll-3", "") != "reactor-http-epoll" ||
		trailingNumber.ReplaceAllString("GC Thread#1", "") != "GC Thread" ||
		trailingNumber.ReplaceAllString("C2 CompilerThre", "") != "C2 CompilerThre" {
		t.Error("a group name keeps its thread's number, or loses its own digits")
	}
}

func TestThreadTicksOfNoProcessIsEmpty(t *testing.T) {
	if threadTicks(0) != nil || threadCores(nil, nil, 1) != nil {
		t.Error("a reading without a process")
	}
}
