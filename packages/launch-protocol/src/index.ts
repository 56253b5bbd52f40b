// What the launcher (`npm start`) and the processes it starts agree on: the variables it hands
// them, how they notice it is gone, and how its readiness probe recognises its own web server.
export { launcherPidSchema, launchNonceSchema } from "./envFields.ts";
export { watchLauncher, type LauncherWatch } from "./launcherWatch.ts";
export {
  answerLaunchChallenge,
  isLaunchProof,
  LAUNCH_CHALLENGE_HEADER,
  LAUNCH_PROOF_HEADER,
  newLaunchChallenge,
  newLaunchNonce,
} from "./launchProof.ts";
export {
  checkCanListen,
  classifyListenError,
  ListenFailedError,
  type ListenFailure,
} from "./listenFailure.ts";
