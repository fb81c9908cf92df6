/**
 * The gateway's first import (see `instrument` in the kit's tracing.ts). Its Express is not
 * traced: a proxied request matches no route of the gateway's own, so the wrapper around each
 * of its layers only cost time on every request; the request's span and its call to the
 * service are traced as everywhere. With spans sent nowhere, a request carries its trace on its
 * own headers, which the proxy passes on: the gateway keeps no context across its steps.
 */
import { instrument } from '@raseed/kit/dist/tracing';

instrument({ express: false, asyncContext: false });
