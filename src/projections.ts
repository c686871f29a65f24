/** Every read model the service keeps, in one place: the runner feeds each of them. */
import { customersProjection } from './customers/read-models/customers.projection.js';
import { merchantsProjection } from './merchants/read-models/merchants.projection.js';
import { Projection } from './platform/projections/projection.js';
import { widgetsProjection } from './widgets/read-models/widgets.projection.js';

export const allProjections: Projection[] = [merchantsProjection, widgetsProjection, customersProjection] as Projection[];
