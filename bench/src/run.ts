console.log('benchmarks: not implemented yet');
