export type { ProgressRecorder, TestClient } from './connect.js';
export { connect } from './connect.js';
export type { Era } from './eras.js';
export { ERAS } from './eras.js';
export type { TestingErrorCode } from './errors.js';
export { TestingError } from './errors.js';
export type {
  CaseOutcome,
  CaseReport,
  EraMatrixOptions,
  EraMatrixReport,
  MatrixMode,
  ToolCase,
} from './matrix.js';
export { eraMatrix, MATRIX_MODES } from './matrix.js';
export type { ConnectOptions } from './options.js';
export type { ServerProcess, SpawnServerOptions } from './process.js';
export { spawnServer } from './process.js';
export { closeAll } from './registry.js';
