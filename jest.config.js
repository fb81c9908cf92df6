/**
 * Unit, component and system tests; browser tests walk the whole store in chromium; fault
 * tests stop shared infrastructure. npm test runs each project on its own.
 */
const base = {
  testEnvironment: 'node',
  transform: {
    // Type-checking is tsc's job (npm test runs it first); tests are only transpiled.
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
  },
  moduleNameMapper: {
    '^@raseed/kit$': '<rootDir>/services/kit/src/index.ts',
    '^@raseed/kit/testing$': '<rootDir>/services/kit/testing/index.ts',
    '^@raseed/supplier-sim$': '<rootDir>/infra/supplier-sim/src/index.ts',
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

module.exports = {
  globalSetup: '<rootDir>/infra/test/global-setup.ts',
  globalTeardown: '<rootDir>/infra/test/global-teardown.ts',
  testTimeout: 60_000,
  projects: [
    {
      ...base,
      displayName: 'main',
      testMatch: ['<rootDir>/{services/*,gateway,infra}/test/**/*.test.ts'],
      testPathIgnorePatterns: [...base.testPathIgnorePatterns, '\\.fault\\.test\\.ts$'],
    },
    {
      ...base,
      displayName: 'browser',
      testMatch: ['<rootDir>/frontend/test/**/*.browser.test.ts'],
      // Browser walks need a longer timeout; jest 29 reads testTimeout only at the top level.
      setupFilesAfterEnv: ['<rootDir>/frontend/test/support/timeout.ts'],
    },
    {
      ...base,
      displayName: 'fault',
      testMatch: ['<rootDir>/{services/*,gateway,infra}/test/**/*.fault.test.ts'],
    },
  ],
};
