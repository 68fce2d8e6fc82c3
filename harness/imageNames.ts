// Image references the test environment's configuration and chart values name. The process node
// runs each from its image table (test/env/node/images.ts); the configuration and the validator
// pins need only the names.

/** Images that are not real images say so in their registry host. */
export const STAND_IN_REGISTRY = 'testenv.aicr.local';

/** The AICR version the stand-in upgrade-check image poses as: the first with upgrade-check. */
export const UPGRADE_CHECK_STAND_IN_VERSION = 'v0.17.0';
export const UPGRADE_CHECK_STAND_IN_IMAGE = `${STAND_IN_REGISTRY}/aicr-upgrade-check:${UPGRADE_CHECK_STAND_IN_VERSION}`;

/** The tag AICR v0.11.1 gives its deployment validator image. */
export const DEPLOYMENT_VALIDATOR_IMAGE = 'ghcr.io/nvidia/aicr-validators/deployment:v0.11.1';
